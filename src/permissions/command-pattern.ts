// Claude Code's command specifier: `*` matches any run of characters (spaces included) at any
// position; a trailing ` *` (or the legacy `:*`) is a word boundary that also matches the bare
// command; anything else is an exact match. reson adds two escapes so a rule can name a command
// that holds a star itself: `\*` is a literal `*`, `\\` a literal backslash.

export function commandPatternRegex(pattern: string): RegExp {
  let body = normalizeCommandText(pattern);
  let tail = "";
  if (body.endsWith(":*")) {
    body = body.slice(0, -2).trimEnd();
    tail = "(?: [\\s\\S]*)?";
  } else if (body.endsWith(" *")) {
    body = body.slice(0, -2).trimEnd();
    tail = "(?: [\\s\\S]*)?";
  }
  let head = "";
  for (let i = 0; i < body.length; i++) {
    const char = body[i]!;
    const next = body[i + 1];
    if (char === "\\" && (next === "*" || next === "\\")) {
      head += escapeRegexChar(next);
      i += 1;
    } else {
      head += char === "*" ? "[\\s\\S]*" : escapeRegexChar(char);
    }
  }
  return new RegExp(`^${head}${tail}$`);
}

/** The specifier that matches exactly `command` (as normalised) and nothing else. */
export function exactCommandPattern(command: string): string {
  return normalizeCommandText(command).replace(/[\\*]/g, "\\$&");
}

/** Whitespace runs become one space, so `git  status` matches `git status`. */
export function normalizeCommandText(text: string): string {
  return text.trim().replace(/\s+/g, " ");
}

function escapeRegexChar(char: string): string {
  return /[.*+?^${}()|[\]\\]/.test(char) ? `\\${char}` : char;
}
