// What the model sees of the page after every action: URL, title and the accessibility
// snapshot with element refs (playwright's ariaSnapshot in "ai" mode), with the elements new
// since the previous snapshot of the same page marked `*[ref=…]`, password fields' values
// masked, and the whole cut to a token budget.
import type { Page } from "playwright-core";
import { estimateTokens } from "../core/tokens.js";

export const MASK = "••••••••";
const REF = /\[ref=([a-z0-9]+)\]/gi;

export interface RenderedState {
  url: string;
  title: string;
  /** The state as the model reads it. */
  text: string;
  /** Refs that were not in the previous snapshot of this page. */
  newRefs: string[];
}

/** Remembers the refs of the last snapshot, so the next one can mark what is new. */
export class SnapshotTracker {
  #seen = new Set<string>();
  #page: string | undefined;

  async render(page: Page, options: { budgetTokens: number; signal: AbortSignal }): Promise<RenderedState> {
    const url = page.url();
    const title = await page.title().catch(() => "");
    const raw = await page.ariaSnapshot({ mode: "ai", signal: options.signal, timeout: 10_000 });
    const masked = maskPasswords(raw, await passwordValues(page));
    const samePage = this.#page === pageKey(url);
    const refs = new Set<string>();
    const newRefs: string[] = [];
    const marked = masked.replace(REF, (whole, ref: string) => {
      refs.add(ref);
      if (!samePage || this.#seen.has(ref)) return whole;
      newRefs.push(ref);
      return `*${whole}`;
    });
    this.#seen = refs;
    this.#page = pageKey(url);
    const head = [`URL: ${url}`, `Title: ${title}`];
    if (newRefs.length > 0) head.push(`New since the last step (marked *): ${newRefs.length} elements`);
    const text = `${head.join("\n")}\n\n${cutToBudget(marked, options.budgetTokens)}`;
    return { url, title, text, newRefs };
  }

  /** Forgets the last snapshot (a new tab is a new page). */
  reset(): void {
    this.#seen = new Set();
    this.#page = undefined;
  }
}

/** Same page for the "new" marks: the URL without its fragment. */
function pageKey(url: string): string {
  return url.replace(/#.*$/, "");
}

/** The values of the page's password fields, read in the page (never kept). */
async function passwordValues(page: Page): Promise<string[]> {
  const values = await page
    .locator("input[type=password]")
    .evaluateAll((inputs) => inputs.map((input) => (input as unknown as { value: string }).value))
    .catch(() => [] as string[]);
  return values.filter((value) => value.length > 0);
}

/** A textbox line showing a password field's value shows the mask instead. */
export function maskPasswords(snapshot: string, values: readonly string[]): string {
  if (values.length === 0) return snapshot;
  const spellings = new Set(values.flatMap((value) => [value, JSON.stringify(value), `'${value}'`]));
  return snapshot
    .split("\n")
    .map((line) => {
      const at = line.lastIndexOf(": ");
      if (at < 0 || !/textbox/.test(line)) return line;
      return spellings.has(line.slice(at + 2)) ? `${line.slice(0, at + 2)}${MASK}` : line;
    })
    .join("\n");
}

/** Whole lines from the top while they fit the budget, and a note saying how much is left. */
export function cutToBudget(text: string, budgetTokens: number): string {
  const lines = text.split("\n");
  let used = 0;
  for (let i = 0; i < lines.length; i++) {
    used += estimateTokens(lines[i] ?? "") + 1;
    if (used > budgetTokens)
      return `${lines.slice(0, i).join("\n")}\n[snapshot cut at about ${budgetTokens} tokens: ${lines.length - i} more lines; scroll, or use browser_extract for the page's text]`;
  }
  return text;
}
