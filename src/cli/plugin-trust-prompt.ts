// The terminal's question before a plugin that needs trust loads (a project's, or a user's folder
// outside $RESON_HOME whose files changed): its code runs with the user's rights, so it loads
// only once the user says yes, and that answer is kept for this exact package. The question
// names the files that changed, so a plugin's author who just edited it answers with one key.
import type { UntrustedPlugin } from "../plugins/index.js";
import { printable } from "./terminal-text.js";

/** Asks once whether a plugin not trusted in its present form may load; its code runs with your rights. */
export async function approveProjectPlugin(
  plugin: UntrustedPlugin,
  io: { write: (text: string) => void; read: (prompt: string) => Promise<string | null> },
): Promise<boolean> {
  const whose =
    plugin.scope === "project"
      ? `The project registers the plugin "${plugin.name}"`
      : `Your plugin "${plugin.name}"`;
  // The names of changed files are whatever a run's commands made: written out, never obeyed.
  io.write(
    `${whose} (${printable(`${plugin.root}: ${plugin.reason}`)}); its code, and what it imports, would run with your rights.\n`,
  );
  const answer = await io.read("Trust and load it? [y] yes, and remember this version  [n] no: ");
  return answer !== null && /^\s*y(es)?\s*$/i.test(answer);
}
