// Long answers cut into messages a platform accepts (Telegram: 4096 characters), at a paragraph
// break where there is one, else a line break, else a space, else anywhere; code points are
// never split in half, and nothing is lost or added but the whitespace at the cuts. One pass
// over the text: each cut looks at its window alone (a 1 MB answer once took seconds, copying
// the whole rest of the text at every cut, and again at each retry of its sending).

export function splitForPlatform(text: string, maxChars: number): string[] {
  const whole = text.trim();
  const parts: string[] = [];
  let start = 0;
  for (;;) {
    const end = afterCodePoints(whole, start, maxChars);
    if (end >= whole.length) break;
    const window = whole.slice(start, end);
    const cut = bestCut(window);
    parts.push(window.slice(0, cut).trimEnd());
    start = afterWhitespace(whole, start + cut);
  }
  const rest = whole.slice(start);
  if (rest.length > 0 || parts.length === 0) parts.push(rest);
  return parts;
}

/**
 * The index after `count` code points from `start` (a surrogate pair is one, a lone surrogate
 * one, as the string iterator counts them), or the text's length when it has fewer than
 * `count + 1` left: then the rest fits in one message.
 */
function afterCodePoints(text: string, start: number, count: number): number {
  let at = start;
  for (let taken = 0; taken < count; taken++) {
    if (at >= text.length) return text.length;
    at += isPairAt(text, at) ? 2 : 1;
  }
  return at;
}

function isPairAt(text: string, at: number): boolean {
  const high = text.charCodeAt(at);
  if (high < 0xd800 || high > 0xdbff || at + 1 >= text.length) return false;
  const low = text.charCodeAt(at + 1);
  return low >= 0xdc00 && low <= 0xdfff;
}

/** Where the whitespace from `at` ends (what trimStart would remove). */
function afterWhitespace(text: string, at: number): number {
  const whitespace = /\s*/y;
  whitespace.lastIndex = at;
  whitespace.exec(text);
  return whitespace.lastIndex;
}

function bestCut(window: string): number {
  const floor = Math.floor(window.length / 2);
  for (const separator of ["\n\n", "\n", " "]) {
    const at = window.lastIndexOf(separator);
    if (at >= floor) return at + separator.length;
  }
  return window.length;
}
