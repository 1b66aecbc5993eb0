// Stripping what runs a command rather than being it: `VAR=value` prefixes, `env`, `timeout`,
// `nice`, `nohup`, `time`, `stdbuf`, `command`, `builtin`, `noglob`, bare `xargs`, and shell
// keywords (`if`, `then`, `do`, `!`, braces). `sudo` is never stripped: it is never read-only.
import type { ShellWord } from "./shell-parse.js";

export interface StrippedCommand {
  /** The command and its arguments. */
  words: ShellWord[];
  /** Names of variables set in front of the command (`FOO=1 cmd`, `env FOO=1 cmd`). */
  assignments: string[];
}

const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*=/;
const LEADING_KEYWORDS = new Set(["if", "then", "else", "elif", "do", "while", "until", "!", "{"]);
const CLOSING_KEYWORDS = new Set(["fi", "done", "esac", "}"]);
const DURATION = /^\d+(\.\d+)?[smhd]?$/;

/** Variables that change what a command executes or loads; a command behind one is never auto-allowed. */
const DANGEROUS_VARIABLES = new Set([
  "PATH",
  "BASH_ENV",
  "ENV",
  "IFS",
  "PROMPT_COMMAND",
  "NODE_OPTIONS",
  "PYTHONPATH",
  "PYTHONSTARTUP",
  "PERL5OPT",
  "PERL5LIB",
  "RUBYOPT",
  "PAGER",
  "EDITOR",
  "VISUAL",
  "LESSOPEN",
  "SHELLOPTS",
  "BASHOPTS",
]);

export function isDangerousVariable(name: string): boolean {
  return DANGEROUS_VARIABLES.has(name) || /^(LD_|DYLD_|GIT_)/.test(name);
}

export function stripWrappers(input: readonly ShellWord[]): StrippedCommand {
  let words = [...input];
  const assignments: string[] = [];
  while (words.length > 0 && CLOSING_KEYWORDS.has(words[words.length - 1]!.raw)) words = words.slice(0, -1);
  for (let guard = 0; guard < 64 && words.length > 0; guard++) {
    const head = words[0]!;
    const name = head.raw;
    if (LEADING_KEYWORDS.has(name)) {
      words = words.slice(1);
      continue;
    }
    if (ASSIGNMENT.test(head.raw)) {
      assignments.push(head.raw.slice(0, head.raw.indexOf("=")));
      words = words.slice(1);
      continue;
    }
    const rest = words.slice(1);
    const stripped = stripOne(name, rest, assignments);
    if (stripped === undefined) break;
    words = stripped;
  }
  return { words, assignments };
}

/** The words after wrapper `name`, or undefined when `name` is not a wrapper we can see through. */
function stripOne(name: string, rest: ShellWord[], assignments: string[]): ShellWord[] | undefined {
  const values = rest.map((word) => word.value);
  switch (name) {
    case "nohup":
    case "builtin":
    case "noglob":
      return rest;
    case "time":
      return values[0] === "-p" ? rest.slice(1) : rest;
    case "command":
      // `command -v x` asks a question; keep it as the command itself.
      if (values[0] === "-v" || values[0] === "-V") return undefined;
      return values[0] === "-p" ? rest.slice(1) : rest;
    case "xargs":
      return values[0] !== undefined && !values[0].startsWith("-") ? rest : undefined;
    case "nice": {
      let k = 0;
      if (values[0] === "-n") k = 2;
      else if (/^(-n)?-?\d+$/.test(values[0] ?? "") || values[0]?.startsWith("--adjustment=")) k = 1;
      return k <= rest.length ? rest.slice(k) : undefined;
    }
    case "timeout": {
      let k = 0;
      while (k < values.length) {
        const v = values[k]!;
        if (v === "-s" || v === "-k" || v === "--signal" || v === "--kill-after") k += 2;
        else if (
          /^(--signal=|--kill-after=|-s|-k)/.test(v) ||
          v === "--preserve-status" ||
          v === "--foreground" ||
          v === "-v" ||
          v === "--verbose"
        )
          k += 1;
        else break;
      }
      if (!DURATION.test(values[k] ?? "")) return undefined;
      return rest.slice(k + 1);
    }
    case "stdbuf": {
      let k = 0;
      while (k < values.length && /^(-[ioe]|--(input|output|error)=)/.test(values[k]!))
        k += /^-[ioe]$/.test(values[k]!) ? 2 : 1;
      return rest.slice(k);
    }
    case "env": {
      let k = 0;
      while (k < values.length) {
        const v = values[k]!;
        if (
          v === "-i" ||
          v === "-0" ||
          v === "--ignore-environment" ||
          v === "--null" ||
          v === "-" ||
          v === "--"
        )
          k += 1;
        else if (v === "-u" || v === "--unset") k += 2;
        else if (v.startsWith("--unset=") || /^-u./.test(v)) k += 1;
        else if (ASSIGNMENT.test(rest[k]!.raw)) {
          assignments.push(v.slice(0, v.indexOf("=")));
          k += 1;
        } else if (v.startsWith("-")) return undefined;
        else break;
      }
      // Bare `env` prints the environment: keep it as the command.
      if (k >= values.length) return undefined;
      return rest.slice(k);
    }
    default:
      return undefined;
  }
}
