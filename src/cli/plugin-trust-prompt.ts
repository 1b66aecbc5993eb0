// The terminal's question before a project's plugin loads: its code runs with the user's rights,
// so it loads only once the user says yes, and that answer is kept for this exact package.
import type { InstalledPlugin } from "../plugins/index.js";

/** Asks once whether a project's plugin (not trusted in its present form) may load; its code runs with your rights. */
export async function approveProjectPlugin(
  plugin: InstalledPlugin & { reason?: string },
  io: { write: (text: string) => void; read: (prompt: string) => Promise<string | null> },
): Promise<boolean> {
  io.write(
    `The project registers the plugin "${plugin.name}" (${plugin.root}${plugin.reason ? `: ${plugin.reason}` : ""}); its code, and what it imports, would run with your rights.\n`,
  );
  const answer = await io.read("Trust and load it? [y] yes, and remember this version  [n] no: ");
  return answer !== null && /^\s*y(es)?\s*$/i.test(answer);
}
