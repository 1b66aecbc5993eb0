// Secrets in shell commands go through the environment, never into the command text (argv is
// visible in /proc/*/cmdline): each `<secret>name</secret>` becomes a variable reference quoted
// for where it sits, found with a small scanner of bash's quoting rules.

export type SecretLookup = (
  name: string,
) => { status: "ok"; value: string } | { status: "missing" } | { status: "outOfScope" };

export interface CommandSubstitution {
  /** The command with placeholders turned into variable references; unusable ones stay as written. */
  command: string;
  /** The variables the command now refers to, with the secret values. */
  env: Record<string, string>;
  used: string[];
  /** Placeholders naming no known secret. */
  missing: string[];
  /** Known secrets not allowed in this workspace. */
  outOfScope: string[];
  /** Placeholders where bash expands no variables (a quoted here-document such as <<'EOF'). */
  unexpandable: string[];
}

type Context = "plain" | "double" | "single" | "ansi" | "heredoc";

/** A plain frame is the top level, a `$( … )` or a backquoted command. */
interface PlainFrame {
  kind: "plain";
  closer: ")" | "`" | undefined;
  /** Open parentheses inside a `$(`, so its own `)` is found. */
  depth: number;
}
type Frame = PlainFrame | { kind: "double" | "single" | "ansi" };

interface Heredoc {
  delimiter: string;
  expands: boolean;
  stripTabs: boolean;
}

const TAG_OPEN = "<secret>";
const TAG_CLOSE = "</secret>";
const WORD_BREAK = new Set([" ", "\t", "\n", ";", "&", "|", "(", ")", "<", ">"]);

export function substituteCommandSecrets(command: string, lookup: SecretLookup): CommandSubstitution {
  const result = new Substitution(command, lookup);
  const stack: Frame[] = [{ kind: "plain", closer: undefined, depth: 0 }];
  let heredocs: Heredoc[] = [];
  let i = 0;
  while (i < command.length) {
    const frame = stack.at(-1)!;
    const tagEnd = tagEndAt(command, i);
    if (tagEnd !== undefined) {
      result.replace(i, tagEnd, frame.kind);
      i = tagEnd;
      continue;
    }
    if (frame.kind !== "plain") {
      i = stepQuoted(command, i, frame.kind, stack);
      continue;
    }
    const c = command[i]!;
    if (c === "\\") i += 2;
    else if (c === "'") {
      stack.push({ kind: "single" });
      i += 1;
    } else if (c === '"') {
      stack.push({ kind: "double" });
      i += 1;
    } else if (c === "$" && (command[i + 1] === "'" || command[i + 1] === '"')) {
      // $'…' is ANSI-C quoting, $"…" a translatable double-quoted string.
      stack.push({ kind: command[i + 1] === "'" ? "ansi" : "double" });
      i += 2;
    } else if (command.startsWith("$(", i)) {
      stack.push({ kind: "plain", closer: ")", depth: 0 });
      i += 2;
    } else if (c === "(" || c === ")") {
      if (frame.closer === ")" && c === "(") frame.depth += 1;
      else if (frame.closer === ")" && frame.depth === 0) stack.pop();
      else if (frame.closer === ")") frame.depth -= 1;
      i += 1;
    } else if (c === "`") {
      if (frame.closer === "`") stack.pop();
      else stack.push({ kind: "plain", closer: "`", depth: 0 });
      i += 1;
    } else if (c === "#" && (i === 0 || WORD_BREAK.has(command[i - 1]!))) {
      // A comment: its quotes open nothing, and a placeholder in it is never run.
      const newline = command.indexOf("\n", i);
      i = newline === -1 ? command.length : newline;
    } else if (command.startsWith("<<<", i)) {
      i += 3;
    } else if (command.startsWith("<<", i)) {
      const parsed = readHeredocOperator(command, i + 2);
      if (parsed.heredoc) heredocs.push(parsed.heredoc);
      i = parsed.end;
    } else if (c === "\n" && heredocs.length > 0) {
      i = scanHeredocBodies(command, i + 1, heredocs, result);
      heredocs = [];
    } else i += 1;
  }
  return result.finish();
}

/** One step inside quotes; returns the next index. */
function stepQuoted(command: string, i: number, kind: "double" | "single" | "ansi", stack: Frame[]): number {
  const c = command[i]!;
  if (kind === "single") {
    if (c === "'") stack.pop();
    return i + 1;
  }
  if (kind === "ansi") {
    if (c === "'") stack.pop();
    return i + (c === "\\" ? 2 : 1);
  }
  // Inside double quotes a backslash escapes only $ ` " \ and newline.
  if (c === "\\") return i + ('$`"\\\n'.includes(command[i + 1] ?? "") ? 2 : 1);
  if (c === '"') {
    stack.pop();
    return i + 1;
  }
  if (command.startsWith("$(", i)) {
    stack.push({ kind: "plain", closer: ")", depth: 0 });
    return i + 2;
  }
  if (c === "`") stack.push({ kind: "plain", closer: "`", depth: 0 });
  return i + 1;
}

/** If a whole `<secret>name</secret>` on one line starts at `at`, where it ends. */
function tagEndAt(command: string, at: number): number | undefined {
  if (!command.startsWith(TAG_OPEN, at)) return undefined;
  const close = command.indexOf(TAG_CLOSE, at + TAG_OPEN.length);
  if (close === -1) return undefined;
  const newline = command.indexOf("\n", at);
  if (newline !== -1 && newline < close) return undefined;
  return close + TAG_CLOSE.length;
}

/** Reads the delimiter word after `<<` or `<<-`; any quoting in it turns expansion off. */
function readHeredocOperator(command: string, from: number): { heredoc: Heredoc | undefined; end: number } {
  let j = from;
  const stripTabs = command[j] === "-";
  if (stripTabs) j += 1;
  while (command[j] === " " || command[j] === "\t") j += 1;
  let delimiter = "";
  let quoted = false;
  while (j < command.length && !WORD_BREAK.has(command[j]!)) {
    const c = command[j]!;
    if (c === "'" || c === '"') {
      const close = command.indexOf(c, j + 1);
      const end = close === -1 ? command.length : close;
      delimiter += command.slice(j + 1, end);
      quoted = true;
      j = end + 1;
    } else if (c === "\\") {
      delimiter += command[j + 1] ?? "";
      quoted = true;
      j += 2;
    } else {
      delimiter += c;
      j += 1;
    }
  }
  const heredoc = delimiter === "" ? undefined : { delimiter, expands: !quoted, stripTabs };
  return { heredoc, end: Math.min(j, command.length) };
}

/** Here-document bodies start on the line after their operators, one after another. */
function scanHeredocBodies(command: string, from: number, heredocs: Heredoc[], result: Substitution): number {
  let at = from;
  for (const heredoc of heredocs) {
    while (at < command.length) {
      const newline = command.indexOf("\n", at);
      const lineEnd = newline === -1 ? command.length : newline;
      const line = command.slice(at, lineEnd);
      const next = newline === -1 ? command.length : newline + 1;
      if ((heredoc.stripTabs ? line.replace(/^\t+/, "") : line) === heredoc.delimiter) {
        at = next;
        break;
      }
      let i = at;
      while (i < lineEnd) {
        const tagEnd = tagEndAt(command, i);
        if (tagEnd === undefined) i += 1;
        else {
          result.replace(i, tagEnd, heredoc.expands ? "heredoc" : undefined);
          i = tagEnd;
        }
      }
      at = next;
    }
  }
  return at;
}

class Substitution {
  readonly #command: string;
  readonly #lookup: SecretLookup;
  readonly #pieces: string[] = [];
  #copied = 0;
  readonly #variables = new Map<string, string>();
  readonly #env: Record<string, string> = {};
  readonly #used = new Set<string>();
  readonly #missing = new Set<string>();
  readonly #outOfScope = new Set<string>();
  readonly #unexpandable = new Set<string>();

  constructor(command: string, lookup: SecretLookup) {
    this.#command = command;
    this.#lookup = lookup;
  }

  /** Replaces the tag at [start, end) with a reference fit for `context`; undefined: none works. */
  replace(start: number, end: number, context: Context | undefined): void {
    const name = this.#command.slice(start + TAG_OPEN.length, end - TAG_CLOSE.length);
    const found = this.#lookup(name);
    if (found.status === "missing") {
      this.#missing.add(name);
      return;
    }
    if (found.status === "outOfScope") {
      this.#outOfScope.add(name);
      return;
    }
    if (context === undefined) {
      this.#unexpandable.add(name);
      return;
    }
    const variable = this.#variableFor(name, found.value);
    this.#used.add(name);
    this.#pieces.push(this.#command.slice(this.#copied, start), reference(variable, context));
    this.#copied = end;
  }

  finish(): CommandSubstitution {
    return {
      command: this.#pieces.join("") + this.#command.slice(this.#copied),
      env: this.#env,
      used: [...this.#used],
      missing: [...this.#missing],
      outOfScope: [...this.#outOfScope],
      unexpandable: [...this.#unexpandable],
    };
  }

  /** One variable per name, its value looked up once (a TOTP code stays the same in one command). */
  #variableFor(name: string, value: string): string {
    const known = this.#variables.get(name);
    if (known) return known;
    const base = `RESON_SECRET_${name.toUpperCase().replace(/[^A-Z0-9]/g, "_")}`;
    const taken = new Set(this.#variables.values());
    let variable = base;
    for (let n = 2; taken.has(variable); n += 1) variable = `${base}_${n}`;
    this.#variables.set(name, variable);
    this.#env[variable] = value;
    return variable;
  }
}

function reference(variable: string, context: Context): string {
  switch (context) {
    case "plain":
      return `"\${${variable}}"`;
    case "double":
    case "heredoc":
      return `\${${variable}}`;
    case "single":
      return `'"\${${variable}}"'`;
    case "ansi":
      return `'"\${${variable}}"$'`;
  }
}
