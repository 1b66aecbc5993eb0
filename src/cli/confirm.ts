// A yes/no question on the terminal, for commands that change or remove what cannot be had back
// (a plugin's trust, `reson gc`). Only asked where someone can answer: callers check for a TTY.
import { createInterface } from "node:readline/promises";

/** Asks `question` with "[y/N]"; false for anything but yes, and when input ends. */
export async function confirm(question: string): Promise<boolean> {
  const rl = createInterface({ input: process.stdin, output: process.stdout });
  try {
    const answer = await rl.question(`${question} [y/N] `).catch(() => "");
    return /^y(es)?$/i.test(answer.trim());
  } finally {
    rl.close();
  }
}
