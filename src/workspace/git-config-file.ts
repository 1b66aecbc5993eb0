// Reading git's config files as git does, for the one question the protected list asks of
// them: which values name a program or a folder git will run from. Sections `[core]`,
// `[filter "lfs"]` and `[diff.x]`, keys case-insensitive, quoted values with escapes, comments
// after `#` or `;`, and a backslash at the end of a line continuing the value. A file that
// cannot be read is no values; a line git would refuse is skipped.

export interface GitConfigValue {
  /** `section.key` or `section.subsection.key`; section and key lowercased, as git compares them. */
  name: string;
  /** undefined for a key given without `=` (a boolean true). */
  value: string | undefined;
}

const SECTION = /^\[\s*([A-Za-z0-9.-]+)(?:\s+"((?:[^"\\]|\\.)*)")?\s*\]/;
const KEY = /^([A-Za-z][A-Za-z0-9-]*)\s*(=)?\s*(.*)$/;

/** A value as git reads it: quotes joined, escapes resolved, a comment outside quotes ended. */
function unquote(raw: string): string {
  let out = "";
  let quoted = false;
  for (let i = 0; i < raw.length; i += 1) {
    const char = raw[i]!;
    if (char === '"') {
      quoted = !quoted;
      continue;
    }
    if (char === "\\" && i + 1 < raw.length) {
      const next = raw[i + 1]!;
      out += next === "n" ? "\n" : next === "t" ? "\t" : next === "b" ? "\b" : next;
      i += 1;
      continue;
    }
    if (!quoted && (char === "#" || char === ";")) break;
    out += char;
  }
  return out.trim();
}

function sectionName(match: RegExpExecArray): string {
  const [, name, subsection] = match;
  if (subsection !== undefined) return `${name!.toLowerCase()}.${subsection.replace(/\\(.)/g, "$1")}`;
  // The old `[section.subsection]` spelling: the subsection is lowercased too.
  return name!.toLowerCase();
}

/** Every value of a config file's text, in order. */
export function parseGitConfig(text: string): GitConfigValue[] {
  const values: GitConfigValue[] = [];
  let section: string | undefined;
  const lines = text.split(/\r?\n/);
  for (let index = 0; index < lines.length; index += 1) {
    let line = lines[index]!.trim();
    while (line.startsWith("[")) {
      const match = SECTION.exec(line);
      if (!match) {
        section = undefined;
        line = "";
        break;
      }
      section = sectionName(match);
      line = line.slice(match[0].length).trim();
    }
    if (line === "" || line.startsWith("#") || line.startsWith(";") || section === undefined) continue;
    const key = KEY.exec(line);
    if (!key) continue;
    const name = `${section}.${key[1]!.toLowerCase()}`;
    if (key[2] === undefined) {
      values.push({ name, value: undefined });
      continue;
    }
    let raw = key[3]!;
    // A backslash at the very end continues the value on the next line.
    while (raw.endsWith("\\") && !raw.endsWith("\\\\") && index + 1 < lines.length) {
      raw = raw.slice(0, -1) + lines[index + 1]!;
      index += 1;
    }
    values.push({ name, value: unquote(raw) });
  }
  return values;
}
