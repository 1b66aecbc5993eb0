// Splits SKILL.md into YAML frontmatter and body, and parses the YAML leniently: skills
// written for other clients often have unquoted values with colons ("description: Use
// when: X"), so a failed parse is retried once with such values quoted. The YAML parser
// (a quarter of the command's code) is loaded only when there is a skill to read.
import { createRequire } from "node:module";

type ParseDocument = typeof import("yaml").parseDocument;

export type FrontmatterResult =
  | { ok: true; data: Record<string, unknown>; body: string }
  | { ok: false; reason: string };

const OPENING = /^---[ \t]*\r?\n/;
const CLOSING = /^(?:---|\.\.\.)[ \t]*$/m;

export function splitFrontmatter(text: string): FrontmatterResult {
  const source = text.startsWith("\uFEFF") ? text.slice(1) : text;
  const opening = OPENING.exec(source);
  if (!opening) return { ok: false, reason: "no YAML frontmatter (the file must start with a --- line)" };
  const rest = source.slice(opening[0].length);
  const closing = CLOSING.exec(rest);
  if (!closing) return { ok: false, reason: "the frontmatter has no closing --- line" };
  const yamlText = rest.slice(0, closing.index);
  const body = rest.slice(closing.index + closing[0].length).replace(/^\r?\n/, "");
  const { parseDocument } = createRequire(import.meta.url)("yaml") as typeof import("yaml");
  const parsed =
    parseYamlMap(parseDocument, yamlText) ?? parseYamlMap(parseDocument, quoteLooseValues(yamlText));
  if (parsed === undefined) {
    return {
      ok: false,
      reason: `the frontmatter is not valid YAML (${firstYamlError(parseDocument, yamlText)})`,
    };
  }
  return { ok: true, data: parsed, body };
}

function parseYamlMap(parseDocument: ParseDocument, text: string): Record<string, unknown> | undefined {
  const doc = parseDocument(text, { prettyErrors: false });
  if (doc.errors.length > 0) return undefined;
  const value: unknown = doc.toJS();
  if (value === null || value === undefined) return {};
  if (typeof value !== "object" || Array.isArray(value)) return undefined;
  return value as Record<string, unknown>;
}

function firstYamlError(parseDocument: ParseDocument, text: string): string {
  const doc = parseDocument(text, { prettyErrors: false });
  const error = doc.errors[0];
  if (error) return error.message.split("\n")[0] ?? error.message;
  return "the frontmatter must be a map of keys to values";
}

/** `key: a: b` at the top level becomes `key: "a: b"`; other lines are left alone. */
function quoteLooseValues(text: string): string {
  return text
    .split(/\r?\n/)
    .map((line) => {
      const match = /^([A-Za-z0-9_-]+):[ \t]+(.+)$/.exec(line);
      if (!match) return line;
      const [, key, value] = match;
      if (!value?.includes(": ") || /^["'[{|>]/.test(value)) return line;
      return `${key}: ${JSON.stringify(value.trim())}`;
    })
    .join("\n");
}
