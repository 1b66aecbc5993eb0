// The one sanitiser for text reson did not write itself (the model's words, tool output, what a
// web page or a file said) on its way to a person's screen: every character that could steer a
// terminal or reorder what is read (escape sequences, carriage returns, bidirectional
// overrides) is written out as `\x1b`, `\u202e`. The terminal (cli/terminal-text.ts) and the
// editor's tool calls and permission requests (acp/) both use it; text going to a file, a pipe
// or a program stays exact.

// C0 controls but tab, DEL, C1 controls, and the bidirectional embeddings, overrides and isolates.
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding them is the point
const UNPRINTABLE = /[\u0000-\u0008\u000a-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;

/** `text` as one line: every character that could steer the screen (newlines too) written out. */
export function printable(text: string): string {
  return text.replace(UNPRINTABLE, (char) => {
    const code = char.charCodeAt(0);
    return code <= 0xff ? `\\x${code.toString(16).padStart(2, "0")}` : `\\u${code.toString(16)}`;
  });
}

/** `text` with its line breaks kept (CRLF as LF) and everything else that could steer the screen written out. */
export function printableLines(text: string): string {
  return text.replace(/\r\n/g, "\n").split("\n").map(printable).join("\n");
}
