// Claude Code's command specifier: `*` matches any run of characters (spaces included) at any
// position; a trailing ` *` (or the legacy `:*`) is a word boundary that also matches the bare
// command; anything else is an exact match.

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
  const head = body
    .split("*")
    .map((piece) => piece.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"))
    .join("[\\s\\S]*");
  return new RegExp(`^${head}${tail}$`);
}

/** Whitespace runs become one space, so `git  status` matches `git status`. */
export function normalizeCommandText(text: string): string {
  return text.trim().replace(/\s+/g, " ");
}
