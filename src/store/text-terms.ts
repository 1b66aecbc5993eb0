// How memory text is cut into terms for the text indexes and for similarity: Latin-script
// (and other spaced) words as they are, lowercased; Chinese, Japanese and Korean runs, which
// have no spaces, as overlapping character bigrams (a lone character stays one term), the
// usual way to index CJK without a dictionary.

// By script extension, so the marks these scripts share (the prolonged sound mark ー) stay
// inside their runs; letters, digits and marks only, so CJK punctuation (、。) separates.
const WORD_CHAR = "[\\p{L}\\p{N}\\p{M}]";
const CJK = `(?=${WORD_CHAR})[\\p{scx=Han}\\p{scx=Hiragana}\\p{scx=Katakana}\\p{scx=Hangul}]`;
// Built on first use: V8 builds these Unicode sets from ICU's tables, ~5 ms of a process's
// start. ASCII text, most of it, does not need them: there a word is [A-Za-z0-9]+, the same.
let segmentsPattern: RegExp | undefined;
/** Printable ASCII and whitespace (other text takes the Unicode way, with the same result). */
const ASCII_ONLY = /^[\t\n\r -~]*$/;
const ASCII_WORDS = /[A-Za-z0-9]+/g;

export interface TextSegment {
  /** Lowercased. */
  text: string;
  /** A run of CJK characters (no spaces inside), else a word. */
  cjk: boolean;
}

/** Words and CJK runs in order; punctuation, spaces and symbols separate them. */
export function textSegments(text: string): TextSegment[] {
  const out: TextSegment[] = [];
  if (ASCII_ONLY.test(text)) {
    for (const match of text.matchAll(ASCII_WORDS)) out.push({ text: match[0].toLowerCase(), cjk: false });
    return out;
  }
  segmentsPattern ??= new RegExp(`((?:${CJK})+)|((?:(?!${CJK})${WORD_CHAR})+)`, "gu");
  for (const match of text.matchAll(segmentsPattern)) {
    if (match[1] !== undefined) out.push({ text: match[1], cjk: true });
    else if (match[2] !== undefined) out.push({ text: match[2].toLowerCase(), cjk: false });
  }
  return out;
}

// English words that carry no topic: left out of a query that has other words, so "how did we
// fix the deploy" searches for fix and deploy, not for every text with "the" in it.
const QUERY_STOPWORDS = new Set(
  (
    "a an and are as at be but by can could did do does for from had has have how i if in into is it its " +
    "me my no not of on or our so than that the their then there these this those to was we were what " +
    "when where which who why will with would you your"
  ).split(" "),
);

/** The segments of a query worth searching for: without stopwords, unless that leaves none. */
export function querySegments(query: string): TextSegment[] {
  const segments = textSegments(query);
  const meaningful = segments.filter((s) => s.cjk || !QUERY_STOPWORDS.has(s.text));
  return meaningful.length > 0 ? meaningful : segments;
}

/** Overlapping n-grams of a CJK run (by code point); a run shorter than n is one term. */
export function characterNgrams(run: string, n: number): string[] {
  const chars = Array.from(run);
  if (chars.length <= n) return [run];
  const grams: string[] = [];
  for (let i = 0; i + n <= chars.length; i++) grams.push(chars.slice(i, i + n).join(""));
  return grams;
}

/** The terms of a text: words, and bigrams of CJK runs. */
export function textTokens(text: string): string[] {
  const tokens: string[] = [];
  for (const segment of textSegments(text)) {
    if (segment.cjk) tokens.push(...characterNgrams(segment.text, 2));
    else tokens.push(segment.text);
  }
  return tokens;
}

/** Length in code points (a CJK character is one, as the indexes count). */
export function charCount(text: string): number {
  let count = 0;
  for (const _ of text) count++;
  return count;
}
