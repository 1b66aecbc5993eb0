// The page's content as Markdown for browser_extract: headings, paragraphs, lists, tables
// (as Markdown tables) and link texts, from what is rendered (hidden elements and form values
// left out, so a typed password never comes back this way). A query keeps the blocks that
// mention any of its words, with the headings above them.
import type { Page } from "playwright-core";

// Runs in the page: plain JavaScript, as a string, because it is evaluated there, not here.
const TO_MARKDOWN = `(() => {
  const SKIP = new Set(["SCRIPT", "STYLE", "NOSCRIPT", "SVG", "TEMPLATE", "IFRAME", "INPUT", "TEXTAREA", "SELECT", "BUTTON"]);
  const BLOCK = new Set(["P", "DIV", "SECTION", "ARTICLE", "MAIN", "HEADER", "FOOTER", "NAV", "ASIDE", "FORM", "FIELDSET", "UL", "OL", "DL", "DT", "DD", "BLOCKQUOTE", "PRE", "FIGURE", "FIGCAPTION", "LABEL"]);
  const out = [];
  let line = "";
  const flush = () => { const t = line.replace(/\\s+/g, " ").trim(); if (t) out.push(t); line = ""; };
  const hidden = (el) => { const s = getComputedStyle(el); return s.display === "none" || s.visibility === "hidden"; };
  const cell = (el) => el.innerText.replace(/\\s+/g, " ").trim().replace(/\\|/g, "\\\\|");
  const walk = (node) => {
    if (node.nodeType === 3) { line += node.textContent; return; }
    if (node.nodeType !== 1) return;
    const el = node;
    if (SKIP.has(el.tagName) || hidden(el)) return;
    const tag = el.tagName;
    if (/^H[1-6]$/.test(tag)) { flush(); out.push("#".repeat(Number(tag[1])) + " " + el.innerText.replace(/\\s+/g, " ").trim()); return; }
    if (tag === "TABLE") {
      flush();
      const rows = [...el.rows].map((row) => [...row.cells].map(cell));
      if (rows.length === 0) return;
      const width = Math.max(...rows.map((r) => r.length));
      const pad = (r) => r.concat(Array(width - r.length).fill(""));
      out.push("| " + pad(rows[0]).join(" | ") + " |");
      out.push("| " + Array(width).fill("---").join(" | ") + " |");
      for (const r of rows.slice(1)) out.push("| " + pad(r).join(" | ") + " |");
      return;
    }
    if (tag === "LI") { flush(); line = "- "; for (const c of el.childNodes) walk(c); flush(); return; }
    if (tag === "BR") { flush(); return; }
    const block = BLOCK.has(tag);
    if (block) flush();
    for (const c of el.childNodes) walk(c);
    if (block) flush();
  };
  if (document.body) walk(document.body);
  flush();
  return out.join("\\n");
})()`;

export async function pageMarkdown(page: Page): Promise<string> {
  const markdown = (await page.evaluate(TO_MARKDOWN)) as string;
  const title = await page.title().catch(() => "");
  return title && !markdown.startsWith("# ") ? `# ${title}\n\n${markdown}` : markdown;
}

/**
 * What mentions a word of the query, under the nearest heading above it: lines, and from a
 * table its header with the matching rows (the whole table when the header matches).
 */
export function filterByQuery(markdown: string, query: string): string {
  const words = query
    .toLowerCase()
    .split(/\W+/)
    .filter((word) => word.length > 2);
  if (words.length === 0) return markdown;
  const kept: string[] = [];
  let heading: string | undefined;
  const keep = (lines: string[]) => {
    if (heading !== undefined) kept.push(heading);
    heading = undefined;
    kept.push(...lines);
  };
  const lines = markdown.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? "";
    if (line.startsWith("#")) {
      heading = line;
      continue;
    }
    if (!line.startsWith("| ")) {
      if (mentions(line, words)) keep([line]);
      continue;
    }
    let end = i;
    while (lines[end + 1]?.startsWith("| ")) end++;
    const [head = "", rule = "", ...rows] = lines.slice(i, end + 1);
    const matching = mentions(head, words) ? rows : rows.filter((row) => mentions(row, words));
    if (matching.length > 0) keep([head, rule, ...matching]);
    i = end;
  }
  return kept.length > 0 ? kept.join("\n") : `(nothing on the page mentions ${JSON.stringify(query)})`;
}

function mentions(line: string, words: readonly string[]): boolean {
  const lower = line.toLowerCase();
  return words.some((word) => lower.includes(word));
}
