// Long text for the terminal, whole: each line broken at spaces (or, for a word longer than the
// width, inside it) to fit the terminal's width, every piece indented. Nothing is ever cut;
// without a width (a pipe) lines stay as they are.

export interface WrapOptions {
  /** The terminal's columns; undefined: do not wrap. */
  width: number | undefined;
  /** Put before the first piece of every line. */
  indent: string;
  /** Put before the pieces a line was broken into; default: `indent`. */
  continuation?: string;
}

/** Narrower than this, wrapping makes text harder to read, not easier. */
const MIN_COLUMNS = 20;

export function wrapText(text: string, options: WrapOptions): string[] {
  const continuation = options.continuation ?? options.indent;
  return text.split("\n").flatMap((line) => wrapLine(line, options.width, options.indent, continuation));
}

function wrapLine(line: string, width: number | undefined, indent: string, continuation: string): string[] {
  if (width === undefined) return [indent + line];
  const out: string[] = [];
  let rest = line;
  let prefix = indent;
  // Each pass takes at least one character, so this ends.
  for (;;) {
    // The last column stays free: some terminals wrap a line that fills it exactly.
    const room = Math.max(MIN_COLUMNS, width - 1 - prefix.length);
    if (rest.length <= room) break;
    const space = rest.lastIndexOf(" ", room);
    const at = space > 0 ? space : room;
    out.push(prefix + rest.slice(0, at).trimEnd());
    rest = rest.slice(space > 0 ? at + 1 : at);
    prefix = continuation;
  }
  out.push(prefix + rest);
  return out;
}
