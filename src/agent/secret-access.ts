// The user's secrets as the tools of one agent see them: substitution scoped to a URL or to
// this workspace, and the one masker every tool output goes through. The provider's API key
// is masked too, so an echo of it (a misconfigured proxy, a debug endpoint) never lands in
// history.
import type { SecretVault } from "../secrets/index.js";
import type { SecretAccess } from "../tools/index.js";

export function secretAccess(vault: SecretVault, workspaceRoot: string, apiKey?: string): SecretAccess {
  if (apiKey && apiKey.length >= vault.redactor.minLength) {
    try {
      vault.redactor.add("provider_api_key", apiKey);
    } catch {
      // A key the redactor cannot hold (e.g. too short) is simply not masked.
    }
  }
  return {
    forUrl(value, url) {
      const filled = vault.substituteArgs(value, { url });
      return {
        value: filled.args as typeof value,
        used: filled.used,
        missing: filled.missing,
        outOfScope: filled.outOfScope,
      };
    },
    forCommand(command) {
      const filled = vault.substituteCommand(command, workspaceRoot);
      return {
        value: filled.command,
        env: filled.env,
        used: filled.used,
        missing: filled.missing,
        outOfScope: filled.outOfScope,
        unexpandable: filled.unexpandable,
      };
    },
    named: (value) => vault.named(value),
    redact: (text) => vault.redactor.redact(text),
    redactStream: () => vault.redactor.stream(),
  };
}
