// README.md's fenced blocks as the README tests see them: each with its language, its body, the
// heading above it, its line, and a key (its first line of substance) that names its scenario.
// A shell block's statements are what a user types, one at a time: a line, or lines joined by a
// trailing backslash; comment lines are left out.
import { readFileSync } from "node:fs";
import { resolve } from "node:path";

export const README = resolve(import.meta.dirname, "../../README.md");

export interface ReadmeBlock {
  /** The fence's info string: "sh", "json", "ts", "js", or "" for plain text. */
  lang: string;
  body: string;
  /** The nearest heading above the block, without its #s. */
  heading: string;
  /** 1-based line of the opening fence. */
  line: number;
  /** The block's first line of substance: see blockKey. */
  key: string;
}

export function readmeBlocks(text = readFileSync(README, "utf8")): ReadmeBlock[] {
  const lines = text.split("\n");
  const blocks: ReadmeBlock[] = [];
  let heading = "";
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const fence = /^```(\S*)\s*$/.exec(line);
    if (!fence) {
      const title = /^#{1,6}\s+(.*)$/.exec(line);
      if (title) heading = title[1]!.trim();
      continue;
    }
    const start = i;
    const body: string[] = [];
    for (i++; i < lines.length && !/^```\s*$/.test(lines[i]!); i++) body.push(lines[i]!);
    const lang = fence[1] ?? "";
    blocks.push({ lang, body: body.join("\n"), heading, line: start + 1, key: blockKey(lang, body) });
  }
  return blocks;
}

/**
 * The first line that is not a comment and has a letter or digit in it (so a JSON block's
 * lone `{` is passed over), without a shell (or JavaScript) comment at its end, spaces collapsed.
 */
export function blockKey(lang: string, body: string[]): string {
  for (const raw of body) {
    const line =
      lang === "sh" ? withoutComment(raw) : ["js", "ts"].includes(lang) ? raw.replace(/\s+\/\/.*$/, "") : raw;
    if (line.trim().startsWith("#") || !/[\p{L}\p{N}]/u.test(line)) continue;
    return line.trim().replace(/\s+/g, " ");
  }
  return "";
}

/** A shell line without its trailing `# comment` (a # outside quotes, after a space). */
export function withoutComment(line: string): string {
  let quote: string | undefined;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (quote) {
      if (c === quote) quote = undefined;
      else if (c === "\\" && quote === '"') i++;
      continue;
    }
    if (c === "'" || c === '"') quote = c;
    else if (c === "\\") i++;
    else if (c === "#" && (i === 0 || /\s/.test(line[i - 1]!))) return line.slice(0, i).trimEnd();
  }
  return line;
}

export interface Statement {
  /** As written in README, continuation lines joined with their backslashes kept. */
  text: string;
  /** 1-based README line where it starts. */
  line: number;
}

/** The statements of a shell block, in order. */
export function shellStatements(block: ReadmeBlock): Statement[] {
  const lines = block.body.split("\n");
  const statements: Statement[] = [];
  for (let i = 0; i < lines.length; i++) {
    const first = lines[i]!;
    if (first.trim() === "" || first.trim().startsWith("#")) continue;
    const parts = [first];
    const line = block.line + 1 + i;
    while (withoutComment(parts.at(-1)!).endsWith("\\") && i + 1 < lines.length) parts.push(lines[++i]!);
    statements.push({ text: parts.join("\n"), line });
  }
  return statements;
}

/** The block whose key is `key`; throws naming the keys there are when README has none. */
export function blockByKey(key: string, blocks = readmeBlocks()): ReadmeBlock {
  const block = blocks.find((b) => b.key === key);
  if (block) return block;
  throw new Error(
    `README has no block whose first line is ${JSON.stringify(key)}; its blocks start with:\n` +
      blocks.map((b) => `  line ${b.line} (${b.heading}): ${b.key}`).join("\n"),
  );
}
