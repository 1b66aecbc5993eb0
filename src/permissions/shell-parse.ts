// A small, conservative reader of shell command lines: it splits a line into simple commands
// at `&&`, `||`, `;`, `|`, `|&`, `&`, newlines and parentheses, respecting quotes, and pulls out
// redirections and the commands inside `$(…)`, backticks and `<(…)`. It never runs anything;
// whatever it cannot read with certainty it reports as a problem, and problems mean "ask".

export interface ShellWord {
  /** The word as written, quotes included. */
  raw: string;
  /** The word with quotes and escapes removed (expansions such as `$HOME` are kept as written). */
  value: string;
  /** The word contains a command substitution. */
  substituted: boolean;
}

export interface Redirect {
  op: string;
  target: ShellWord;
}

export interface SimpleCommand {
  words: ShellWord[];
  redirects: Redirect[];
  /** Came from inside `$(…)`, backticks or `<(…)`. */
  nested: boolean;
}

export interface ParsedCommandLine {
  commands: SimpleCommand[];
  /** Reasons the line could not be read with certainty; non-empty means it cannot be auto-allowed. */
  problems: string[];
}

export const MAX_COMMAND_LENGTH = 10_000;
const MAX_NESTING = 16;
const SUBSTITUTION_MARK = "\u0000";

export function parseCommandLine(source: string): ParsedCommandLine {
  const out: ParsedCommandLine = { commands: [], problems: [] };
  if (source.length > MAX_COMMAND_LENGTH) {
    out.problems.push(`the command is longer than ${MAX_COMMAND_LENGTH} characters`);
    return out;
  }
  parseInto(source, false, 0, out);
  return out;
}

function parseInto(source: string, nested: boolean, depth: number, out: ParsedCommandLine): void {
  if (depth > MAX_NESTING) {
    out.problems.push("command substitutions are nested too deeply");
    return;
  }
  let words: ShellWord[] = [];
  let redirects: Redirect[] = [];
  let raw = "";
  let value = "";
  let inWord = false;
  let substituted = false;
  let pendingRedirect: string | undefined;
  const heredocs: { delimiter: string; stripTabs: boolean; quoted: boolean }[] = [];

  const nestedSource = (inner: string) => {
    substituted = true;
    parseInto(inner, true, depth + 1, out);
  };
  const endWord = () => {
    if (!inWord) return;
    const word = { raw, value, substituted };
    if (pendingRedirect !== undefined) {
      if (pendingRedirect.startsWith("<<")) {
        heredocs.push({
          delimiter: value,
          stripTabs: pendingRedirect === "<<-",
          quoted: raw !== value,
        });
      } else {
        redirects.push({ op: pendingRedirect, target: word });
      }
      pendingRedirect = undefined;
    } else {
      words.push(word);
    }
    raw = "";
    value = "";
    inWord = false;
    substituted = false;
  };
  const endCommand = () => {
    endWord();
    if (pendingRedirect !== undefined) {
      out.problems.push(`a ${pendingRedirect} redirection has no target`);
      pendingRedirect = undefined;
    }
    if (words.length > 0 || redirects.length > 0) out.commands.push({ words, redirects, nested });
    words = [];
    redirects = [];
  };

  let i = 0;
  /** A substitution ending at `end` is one part of the current word: as written, valued as a mark. */
  const takeSubstitution = (end: number) => {
    raw += source.slice(i, end + 1);
    value += SUBSTITUTION_MARK;
    inWord = true;
    i = end + 1;
  };
  while (i < source.length) {
    const c = source[i]!;
    const next = source[i + 1];
    if (c === "\\") {
      if (next === "\n") {
        i += 2;
        continue;
      }
      if (next === undefined) {
        out.problems.push("the command ends in a backslash");
        i += 1;
        continue;
      }
      raw += c + next;
      value += next;
      inWord = true;
      i += 2;
      continue;
    }
    if (c === "'") {
      const close = source.indexOf("'", i + 1);
      if (close < 0) {
        out.problems.push("a single quote is not closed");
        endCommand();
        return;
      }
      raw += source.slice(i, close + 1);
      value += source.slice(i + 1, close);
      inWord = true;
      i = close + 1;
      continue;
    }
    if (c === '"') {
      let j = i + 1;
      let text = "";
      let closed = false;
      while (j < source.length) {
        const d = source[j]!;
        if (d === "\\" && j + 1 < source.length) {
          const e = source[j + 1]!;
          text += '"\\$`\n'.includes(e) ? (e === "\n" ? "" : e) : d + e;
          j += 2;
          continue;
        }
        if (d === '"') {
          closed = true;
          break;
        }
        if (d === "$" && source[j + 1] === "(") {
          const end = matchParen(source, j + 1);
          if (end < 0) break;
          nestedSource(source.slice(j + 2, end));
          text += SUBSTITUTION_MARK;
          j = end + 1;
          continue;
        }
        if (d === "`") {
          const end = matchBacktick(source, j);
          if (end < 0) break;
          nestedSource(source.slice(j + 1, end));
          text += SUBSTITUTION_MARK;
          j = end + 1;
          continue;
        }
        text += d;
        j += 1;
      }
      if (!closed) {
        out.problems.push("a double quote is not closed");
        endCommand();
        return;
      }
      raw += source.slice(i, j + 1);
      value += text;
      inWord = true;
      i = j + 1;
      continue;
    }
    if (c === "$" && next === "(") {
      const end = matchParen(source, i + 1);
      if (end < 0) {
        out.problems.push("a $( substitution is not closed");
        endCommand();
        return;
      }
      if (source[i + 2] === "(") {
        // Arithmetic $((…)): no command runs unless it holds a substitution itself.
        const inner = source.slice(i + 3, end - 1);
        if (/[`]|\$\(/.test(inner)) out.problems.push("a substitution inside $((…)) arithmetic");
      } else {
        nestedSource(source.slice(i + 2, end));
      }
      takeSubstitution(end);
      continue;
    }
    if (c === "`") {
      const end = matchBacktick(source, i);
      if (end < 0) {
        out.problems.push("a backtick substitution is not closed");
        endCommand();
        return;
      }
      nestedSource(source.slice(i + 1, end));
      takeSubstitution(end);
      continue;
    }
    if (c === "#" && !inWord) {
      const eol = source.indexOf("\n", i);
      i = eol < 0 ? source.length : eol;
      continue;
    }
    if (c === " " || c === "\t" || c === "\r") {
      endWord();
      i += 1;
      continue;
    }
    if (c === "\n") {
      endCommand();
      i += 1;
      if (heredocs.length > 0) i = skipHeredocs(source, i, heredocs.splice(0), out);
      continue;
    }
    if (c === ";") {
      endCommand();
      i += next === ";" ? 2 : 1;
      continue;
    }
    if (c === "|") {
      endCommand();
      i += next === "|" || next === "&" ? 2 : 1;
      continue;
    }
    if (c === "&") {
      if (next === ">") {
        endWord();
        const op = source[i + 2] === ">" ? "&>>" : "&>";
        pendingRedirect = op;
        i += op.length;
        continue;
      }
      endCommand();
      i += next === "&" ? 2 : 1;
      continue;
    }
    if ((c === "<" || c === ">") && next === "(") {
      const end = matchParen(source, i + 1);
      if (end < 0) {
        out.problems.push("a process substitution is not closed");
        endCommand();
        return;
      }
      nestedSource(source.slice(i + 2, end));
      takeSubstitution(end);
      continue;
    }
    // A secret placeholder is part of a word, not two redirections: execute_command puts a
    // quoted variable in its place before any shell sees it, and refuses a command whose
    // placeholders it cannot fill (src/secrets/shell-substitution.ts reads them the same way).
    const placeholder = c === "<" ? SECRET_PLACEHOLDER.exec(source.slice(i, i + 512)) : null;
    if (placeholder) {
      raw += placeholder[0];
      value += placeholder[0];
      inWord = true;
      i += placeholder[0].length;
      continue;
    }
    if (c === ">" || c === "<") {
      // A word of digits right before the operator is the file descriptor (`2>`).
      if (inWord && /^\d+$/.test(raw)) {
        raw = "";
        value = "";
        inWord = false;
      } else {
        endWord();
      }
      if (pendingRedirect !== undefined) out.problems.push("two redirection operators in a row");
      const op = readRedirectOp(source, i);
      i += op.length;
      if (op === ">&" || op === "<&") {
        // `2>&1` duplicates a descriptor and writes nothing; `>& file` writes the file.
        const rest = /^\s*(\d+-?|-)(?=$|[\s;&|)])/.exec(source.slice(i));
        if (rest) {
          i += rest[0].length;
          continue;
        }
        pendingRedirect = op === ">&" ? ">" : "<";
        continue;
      }
      pendingRedirect = op;
      continue;
    }
    if (c === "(" || c === ")") {
      endCommand();
      i += 1;
      continue;
    }
    raw += c;
    value += c;
    inWord = true;
    i += 1;
  }
  endCommand();
  if (heredocs.length > 0) out.problems.push("a here-document has no body");
}

/** `<secret>name</secret>` on one line, as shell-substitution.ts finds it. */
const SECRET_PLACEHOLDER = /^<secret>[^\n]*?<\/secret>/;

function readRedirectOp(source: string, i: number): string {
  for (const op of ["<<<", "<<-", ">>", ">|", ">&", "<&", "<<", "<>", ">", "<"])
    if (source.startsWith(op, i)) return op;
  return source[i]!;
}

/** The index of the `)` closing the `(` at `open`, skipping quotes and nested parentheses; -1 if none. */
function matchParen(source: string, open: number): number {
  let depth = 0;
  for (let i = open; i < source.length; i++) {
    const c = source[i]!;
    if (c === "\\") {
      i += 1;
      continue;
    }
    if (c === "'") {
      const close = source.indexOf("'", i + 1);
      if (close < 0) return -1;
      i = close;
      continue;
    }
    if (c === '"') {
      let j = i + 1;
      while (j < source.length && source[j] !== '"') j += source[j] === "\\" ? 2 : 1;
      if (j >= source.length) return -1;
      i = j;
      continue;
    }
    if (c === "`") {
      const close = matchBacktick(source, i);
      if (close < 0) return -1;
      i = close;
      continue;
    }
    if (c === "(") depth += 1;
    if (c === ")") {
      depth -= 1;
      if (depth === 0) return i;
    }
  }
  return -1;
}

function matchBacktick(source: string, open: number): number {
  for (let i = open + 1; i < source.length; i++) {
    if (source[i] === "\\") {
      i += 1;
      continue;
    }
    if (source[i] === "`") return i;
  }
  return -1;
}

function skipHeredocs(
  source: string,
  start: number,
  heredocs: { delimiter: string; stripTabs: boolean; quoted: boolean }[],
  out: ParsedCommandLine,
): number {
  let i = start;
  for (const doc of heredocs) {
    let found = false;
    while (i < source.length) {
      const eol = source.indexOf("\n", i);
      const end = eol < 0 ? source.length : eol;
      const line = source.slice(i, end);
      i = end + 1;
      if ((doc.stripTabs ? line.replace(/^\t+/, "") : line) === doc.delimiter) {
        found = true;
        break;
      }
      // An unquoted here-document expands substitutions in its body.
      if (!doc.quoted && /`|\$\(/.test(line)) out.problems.push("a here-document body holds a substitution");
    }
    if (!found) out.problems.push(`the here-document ${doc.delimiter} is not closed`);
  }
  return Math.min(i, source.length);
}

export function hasSubstitutionMark(text: string): boolean {
  return text.includes(SUBSTITUTION_MARK);
}
