// Text reson did not write itself on its way to a terminal: through core's sanitiser
// (printable-text.ts) where the stream is a terminal, so a file the model repeats cannot
// recolour, retitle or rewrite the screen. reson's own colours are added after it. Text going
// to a file or a pipe stays exact.
import { printable, printableLines } from "../core/printable-text.js";

export { printable, printableLines };

/** Whether a stream is a terminal, where text from outside must go through printableLines. */
export function isTerminal(stream: NodeJS.WritableStream): boolean {
  return (stream as { isTTY?: boolean }).isTTY === true;
}

/** What to pass outside text through before writing it to `stream`: printableLines on a terminal, nothing elsewhere. */
export function outsideText(stream: NodeJS.WritableStream): (text: string) => string {
  return isTerminal(stream) ? printableLines : (text) => text;
}
