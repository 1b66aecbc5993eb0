// What an editor's user is told to do where reson's own hints speak to a terminal: an editor
// starts `reson acp` itself, so there is no --api-key to pass and no --continue to leave out.
import { PROVIDER_CATALOG, type ProviderName } from "../providers/index.js";

const AGENT_SETTINGS =
  "the \"env\" of reson's entry in your editor's agent settings (Zed: agent_servers.reson.env in settings.json; JetBrains: ~/.jetbrains/acp.json)";

/** Where a provider's key goes for an editor's user: "set ANTHROPIC_API_KEY in the env of …". */
export function editorKeyHint(provider: ProviderName): string {
  const envKey = PROVIDER_CATALOG[provider].envKey;
  const variable = envKey ?? "the provider's key variable";
  return `set ${variable} in ${AGENT_SETTINGS}, or in the environment the editor starts from, then start a new session`;
}

/** What to do about a session whose run another reson process holds (a terminal, another editor). */
export const SESSION_HELD_REMEDY =
  "Another reson process is running this session (a terminal, or another editor): wait for its run to end and send the prompt again, or start a new session here.";
