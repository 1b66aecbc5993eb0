// Diff lines as a block of the page: one line an element, coloured by kind (added, removed,
// hunk header), text only.
import type { DiffLine } from "./diff-lines.js";
import { h } from "./dom.js";

export function diffBlock(lines: DiffLine[], label: string): HTMLElement {
  return h(
    "pre",
    { class: "diff", tabindex: "0", "aria-label": label },
    ...lines.map((line) => h("span", { class: `d-${line.kind}` }, `${line.text}\n`)),
  );
}
