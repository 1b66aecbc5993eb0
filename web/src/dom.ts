// A few lines of DOM building: elements with text children only (never innerHTML), so text
// from the run (tool output, model answers) can never become markup; and every text child is
// shown as it is, its control characters and bidirectional overrides written out, so it cannot
// show other words than it holds either (an approval's command, a file name).
type Child = Node | string | number | null | undefined | false;

/**
 * `text` with C0 and C1 controls (but tab and line breaks) and the bidirectional embeddings,
 * overrides and isolates written as their code, never applied: the same characters the
 * terminal's sanitiser writes out. A command shown for approval with U+202E reversing its end
 * would read as another command than the one allowed.
 */
export function visible(text: string): string {
  return text.replace(/\r\n/g, "\n").replace(
    // biome-ignore lint/suspicious/noControlCharactersInRegex: these are the characters made visible
    /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g,
    (c) => `\\u{${c.codePointAt(0)!.toString(16)}}`,
  );
}

/**
 * The attributes whose value the page shows (a tooltip, a field's text, a choice in a list) or
 * reads aloud: written out as text children are. The others (ids, data-*, href, class) are keys
 * the page looks things up by, kept as they are.
 */
const SHOWN_ATTRIBUTES = new Set(["title", "value", "placeholder", "label", "alt", "aria-label"]);

export function h(
  tag: string,
  attributes: Record<string, string | ((event: Event) => void)> = {},
  ...children: Child[]
): HTMLElement {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (typeof value === "function") element.addEventListener(name, value);
    else element.setAttribute(name, SHOWN_ATTRIBUTES.has(name) ? visible(value) : value);
  }
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    element.append(typeof child === "object" ? child : visible(String(child)));
  }
  return element;
}

export function tokens(n: number): string {
  return n >= 1000 ? `${(n / 1000).toFixed(1)}k` : String(n);
}

/**
 * What a usage cost: "$1.25"; "cost unknown" when no call had a known price (a local model),
 * never "$0"; "$1.25 + unknown" when part of it had none (as the CLI says it).
 */
export function cost(usage: { costUsd: number; totalTokens: number; unpricedTokens?: number }): string {
  const usd = usage.costUsd;
  const known = usd === 0 ? "$0" : usd < 0.01 ? `$${usd.toFixed(4)}` : `$${usd.toFixed(2)}`;
  const unpriced = usage.unpricedTokens ?? 0;
  if (unpriced <= 0) return known;
  return unpriced >= usage.totalTokens ? "cost unknown" : `${known} + unknown`;
}

export function duration(ms: number): string {
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`;
}
