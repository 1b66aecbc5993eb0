// The one sanitiser for text reson did not write itself (the model's words, tool output, what a
// web page or a file said) on its way to a terminal: every character that could steer the
// terminal (escape sequences, carriage returns, bidirectional overrides) is written out as
// `\x1b`, `\u202e`, so a file the model repeats cannot recolour, retitle or rewrite the
// screen. reson's own colours are added after it. Text going to a file or a pipe stays exact.

// C0 controls but tab, DEL, C1 controls, and the bidirectional embeddings, overrides and isolates.
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding them is the point
const UNPRINTABLE = /[\u0000-\u0008\u000a-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;

/** `text` as one line: every character that could steer the terminal (newlines too) written out. */
export function printable(text: string): string {
  return text.replace(UNPRINTABLE, (char) => {
    const code = char.charCodeAt(0);
    return code <= 0xff ? `\\x${code.toString(16).padStart(2, "0")}` : `\\u${code.toString(16)}`;
  });
}

/** `text` with its line breaks kept (CRLF as LF) and everything else that could steer the terminal written out. */
export function printableLines(text: string): string {
  return text.replace(/\r\n/g, "\n").split("\n").map(printable).join("\n");
}

/** Whether a stream is a terminal, where text from outside must go through printableLines. */
export function isTerminal(stream: NodeJS.WritableStream): boolean {
  return (stream as { isTTY?: boolean }).isTTY === true;
}

/** What to pass outside text through before writing it to `stream`: printableLines on a terminal, nothing elsewhere. */
export function outsideText(stream: NodeJS.WritableStream): (text: string) => string {
  return isTerminal(stream) ? printableLines : (text) => text;
}
