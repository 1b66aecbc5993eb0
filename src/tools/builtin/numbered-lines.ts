// The line format read_file shows and edit_file echoes: the 1-based line number right-aligned
// in six columns, a tab, then the line, cut when very long. Line endings are not shown.

/** Lines longer than this are cut in the display (the file is not changed). */
export const MAX_LINE_CHARS = 2000;

/** Splits text into lines without their endings; a final newline does not add an empty line. */
export function splitLines(text: string): string[] {
  if (text === "") return [];
  const lines = text.split("\n");
  if (lines.at(-1) === "") lines.pop();
  return lines.map((line) => (line.endsWith("\r") ? line.slice(0, -1) : line));
}

export function numberedLine(lineNumber: number, line: string): string {
  const shown =
    line.length > MAX_LINE_CHARS
      ? `${line.slice(0, MAX_LINE_CHARS)}… [line cut: ${line.length} characters in all]`
      : line;
  return `${String(lineNumber).padStart(6)}\t${shown}`;
}

/** `lines[from-1 .. to-1]` numbered from `from`. */
export function numberedLines(lines: readonly string[], from: number, to: number): string {
  const out: string[] = [];
  for (let n = from; n <= to; n += 1) out.push(numberedLine(n, lines[n - 1] ?? ""));
  return out.join("\n");
}
