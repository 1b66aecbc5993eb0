// The user's secrets as the tools of one agent see them: substitution scoped to a URL or to
// this workspace, and the one masker every tool output goes through. The provider's API key,
// the chat channels' tokens and the MCP servers' secrets are masked too, so an echo of one (a
// misconfigured proxy, a debug endpoint, a model repeating it) never lands in history.
import type { SecretVault } from "../secrets/index.js";
import type { SecretAccess } from "../tools/index.js";

export function secretAccess(
  vault: SecretVault,
  workspaceRoot: string,
  masked: readonly { name: string; value: string | undefined }[] = [],
): SecretAccess {
  for (const { name, value } of masked) {
    if (!value || value.length < vault.redactor.minLength) continue;
    try {
      vault.redactor.add(name, value);
    } catch {
      // A value the redactor cannot hold (a name it refuses) is simply not masked.
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
