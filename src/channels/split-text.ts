// Long answers cut into messages a platform accepts (Telegram: 4096 characters), at a paragraph
// break where there is one, else a line break, else a space, else anywhere; code points are
// never split in half, and nothing is lost or added but the whitespace at the cuts.

export function splitForPlatform(text: string, maxChars: number): string[] {
  const parts: string[] = [];
  let rest = text.trim();
  while ([...rest].length > maxChars) {
    const window = [...rest].slice(0, maxChars).join("");
    const cut = bestCut(window);
    parts.push(window.slice(0, cut).trimEnd());
    rest = rest.slice(cut).trimStart();
  }
  if (rest.length > 0 || parts.length === 0) parts.push(rest);
  return parts;
}

function bestCut(window: string): number {
  const floor = Math.floor(window.length / 2);
  for (const separator of ["\n\n", "\n", " "]) {
    const at = window.lastIndexOf(separator);
    if (at >= floor) return at + separator.length;
  }
  return window.length;
}
