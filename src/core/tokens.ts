// Token estimation without a tokenizer (seed 001, ADR-2): one pass over the char codes
// counts the shapes BPE tokenizers care about (words, camelCase breaks, digit groups,
// punctuation runs, whitespace runs, CJK characters), and a linear model turns those counts
// into tokens. The weights were fitted against o200k on a mixed corpus (bench/token-estimate.mjs
// reports the error); TokenCalibrator then follows the counts the provider reports, so the
// estimate tracks the tokenizer of the model actually in use.

/** What the scanner counts, in the order of TOKEN_WEIGHTS. */
export const TOKEN_FEATURES = [
  "words", // runs of letters (ASCII or other scripts)
  "wordExcess4", // Σ max(0, length − 4) over words: long words split into pieces
  "wordExcess14", // Σ max(0, length − 14)
  "caseBreaks", // camelCase and ACRONYMWord boundaries inside a word
  "upperPairs", // capitals right after a capital (ALL-CAPS words are rarer in vocabularies)
  "accentedLetters", // Latin letters beyond ASCII (é, ß, ł…)
  "foreignLetters", // letters of other alphabets (Greek, Cyrillic, Arabic, Indic…)
  "digitGroups", // digits, in groups of up to three
  "punctRuns", // runs of ASCII punctuation and symbols
  "punctChars", // their characters
  "spaceRuns", // runs of two or more spaces or tabs (indentation, alignment)
  "spaceRunChars", // their characters
  "looseSpaces", // a lone space or tab that cannot join the next piece (a tab, before digits, at the end)
  "newlineChars", // line breaks
  "hanChars", // CJK ideographs
  "kanaChars", // hiragana and katakana
  "hangulChars", // Hangul syllables and jamo
  "cjkPunctChars", // CJK and full-width punctuation
  "symbolChars", // other non-ASCII symbols (quotes, dashes, arrows, box drawing)
  "astralChars", // characters outside the BMP that are not ideographs (emoji…)
] as const;

/** Tokens per counted feature, fitted with `node bench/token-estimate.mjs --fit`. */
export const TOKEN_WEIGHTS: readonly number[] = [
  0.949, 0.049, 0.116, 0.402, 0.464, 1.23, 0.099, 1.349, 0.588, 0.159, 1.036, 0.01, 0.671, 0.364, 0.858,
  0.658, 0.708, 0.694, 0.401, 1.5,
];

const FEATURE_COUNT = TOKEN_FEATURES.length;

// Character classes. Letters come first so `k <= OTHER_LETTER` means "a letter".
const LOWER = 0;
const UPPER = 1;
const ACCENTED = 2; // Latin letters beyond ASCII (é, ß, ł, ă…)
const OTHER_LETTER = 3; // letters of other alphabets (Greek, Cyrillic, Arabic, Indic…)
const DIGIT = 4;
const SPACE = 5;
const TAB = 6;
const NEWLINE = 7;
const PUNCT = 8;
const HAN_CHAR = 9;
const KANA_CHAR = 10;
const HANGUL_CHAR = 11;
const CJK_PUNCT_CHAR = 12;
const SYMBOL = 13;
const HIGH_SURROGATE = 14;

// One byte per BMP code unit (64 KiB), so the hot loop does a single load per character.
// Filled by ranges (a later range overrides an earlier one), which costs microseconds at import.
const CLASS = new Uint8Array(0x10000).fill(SYMBOL);
CLASS.fill(PUNCT, 0, 128);
CLASS.fill(LOWER, 97, 123);
CLASS.fill(UPPER, 65, 91);
CLASS.fill(DIGIT, 48, 58);
CLASS[32] = CLASS[11] = CLASS[12] = SPACE;
CLASS[9] = TAB;
CLASS[10] = CLASS[13] = NEWLINE;
const RANGES: ReadonlyArray<readonly [from: number, to: number, kind: number]> = [
  [0x00c0, 0x0250, ACCENTED],
  [0x0250, 0x2000, OTHER_LETTER], // IPA, Greek, Cyrillic, Hebrew, Arabic, Indic, Thai…
  [0x1e00, 0x1f00, ACCENTED], // Vietnamese and other extended Latin
  [0x2e80, 0x3000, HAN_CHAR], // radicals
  [0x3000, 0x3040, CJK_PUNCT_CHAR],
  [0x3040, 0x3400, KANA_CHAR], // kana, bopomofo
  [0x3130, 0x3190, HANGUL_CHAR], // compatibility jamo
  [0x3400, 0xa000, HAN_CHAR],
  [0xa000, 0xac00, OTHER_LETTER], // Yi, Vai, jamo extensions: rare
  [0xac00, 0xd800, HANGUL_CHAR],
  [0xd800, 0xdc00, HIGH_SURROGATE],
  [0xf900, 0xfb00, HAN_CHAR], // compatibility ideographs
  [0xfb00, 0xfe00, OTHER_LETTER], // presentation forms
  [0xfe30, 0xfe50, CJK_PUNCT_CHAR],
  [0xff00, 0xfff0, CJK_PUNCT_CHAR], // full-width forms
];
for (const [from, to, kind] of RANGES) CLASS.fill(kind, from, to);
CLASS[0xd7] = CLASS[0xf7] = SYMBOL; // × ÷

/**
 * Counts the features of `text` into `out` (length TOKEN_FEATURES.length).
 * Exposed for the benchmark that fits TOKEN_WEIGHTS; callers want estimateTokens.
 */
export function countTokenFeatures(
  text: string,
  out: Float64Array = new Float64Array(FEATURE_COUNT),
): Float64Array {
  let words = 0;
  let excess4 = 0;
  let excess14 = 0;
  let caseBreaks = 0;
  let upperPairs = 0;
  let accented = 0;
  let foreign = 0;
  let digitGroups = 0;
  let punctRuns = 0;
  let punctChars = 0;
  let spaceRuns = 0;
  let spaceRunChars = 0;
  let looseSpaces = 0;
  let newlineChars = 0;
  let han = 0;
  let kana = 0;
  let hangul = 0;
  let cjkPunct = 0;
  let symbols = 0;
  let astral = 0;

  const n = text.length;
  let i = 0;
  let k = n > 0 ? CLASS[text.charCodeAt(0)]! : 0;
  while (i < n) {
    if (k <= OTHER_LETTER) {
      let len = 0;
      let upperRun = 0;
      let prevLower = false;
      do {
        if (k === UPPER) {
          if (prevLower) caseBreaks++;
          else if (upperRun > 0) upperPairs++;
          upperRun++;
          prevLower = false;
        } else {
          // "HTTPServer": the break falls before the last capital of a run of two or more.
          if (upperRun >= 2) caseBreaks++;
          upperRun = 0;
          prevLower = true;
          if (k === ACCENTED) accented++;
          else if (k === OTHER_LETTER) foreign++;
        }
        len++;
        if (++i >= n) break;
        k = CLASS[text.charCodeAt(i)]!;
      } while (k <= OTHER_LETTER);
      words++;
      if (len > 4) {
        excess4 += len - 4;
        if (len > 14) excess14 += len - 14;
      }
      continue;
    }
    switch (k) {
      case DIGIT: {
        let len = 0;
        do {
          len++;
          if (++i >= n) break;
          k = CLASS[text.charCodeAt(i)]!;
        } while (k === DIGIT);
        digitGroups += ((len + 2) / 3) | 0;
        continue;
      }
      case SPACE:
      case TAB:
      case NEWLINE: {
        let breaks = 0;
        let tail = 0;
        let lastTab = false;
        do {
          if (k === NEWLINE) {
            breaks++;
            tail = 0;
          } else {
            lastTab = k === TAB;
            tail++;
          }
          if (++i >= n) break;
          k = CLASS[text.charCodeAt(i)]!;
        } while (k === SPACE || k === TAB || k === NEWLINE);
        newlineChars += breaks;
        if (tail >= 2) {
          spaceRuns++;
          spaceRunChars += tail;
        } else if (tail === 1 && (lastTab || i >= n || k === DIGIT)) {
          looseSpaces++;
        }
        continue;
      }
      case PUNCT: {
        let len = 0;
        do {
          len++;
          if (++i >= n) break;
          k = CLASS[text.charCodeAt(i)]!;
        } while (k === PUNCT);
        punctRuns++;
        punctChars += len;
        continue;
      }
      case HAN_CHAR:
        han++;
        break;
      case KANA_CHAR:
        kana++;
        break;
      case HANGUL_CHAR:
        hangul++;
        break;
      case CJK_PUNCT_CHAR:
        cjkPunct++;
        break;
      case HIGH_SURROGATE: {
        const low = i + 1 < n ? text.charCodeAt(i + 1) : 0;
        if (low >= 0xdc00 && low < 0xe000) {
          const codePoint = (text.charCodeAt(i) - 0xd800) * 0x400 + (low - 0xdc00) + 0x10000;
          // Planes 2 and 3 hold the rare ideographs (CJK extensions B and on).
          if (codePoint >= 0x20000 && codePoint < 0x40000) han++;
          else astral++;
          i++;
        } else {
          symbols++;
        }
        break;
      }
      default:
        symbols++;
    }
    if (++i < n) k = CLASS[text.charCodeAt(i)]!;
  }

  out[0] = words;
  out[1] = excess4;
  out[2] = excess14;
  out[3] = caseBreaks;
  out[4] = upperPairs;
  out[5] = accented;
  out[6] = foreign;
  out[7] = digitGroups;
  out[8] = punctRuns;
  out[9] = punctChars;
  out[10] = spaceRuns;
  out[11] = spaceRunChars;
  out[12] = looseSpaces;
  out[13] = newlineChars;
  out[14] = han;
  out[15] = kana;
  out[16] = hangul;
  out[17] = cjkPunct;
  out[18] = symbols;
  out[19] = astral;
  return out;
}

const scratch = new Float64Array(FEATURE_COUNT);

/** Estimated tokens of `text` for a modern BPE tokenizer (o200k-like); 0 for "". */
export function estimateTokens(text: string): number {
  if (text.length === 0) return 0;
  countTokenFeatures(text, scratch);
  let sum = 0;
  for (let f = 0; f < FEATURE_COUNT; f++) sum += scratch[f]! * TOKEN_WEIGHTS[f]!;
  return Math.max(1, Math.round(sum));
}

// ---------------------------------------------------------------------------------------
// Messages: pi-ai's shapes, described structurally so core imports nothing.

export type EstimablePart =
  | { type: "text"; text: string }
  | { type: "thinking"; thinking: string }
  | { type: "toolCall"; name: string; arguments: unknown }
  | { type: "image" }
  | { type: string };

export interface EstimableMessage {
  role: string;
  content: string | readonly EstimablePart[];
}

/** Role markers and separators every chat format wraps around a message. */
export const MESSAGE_OVERHEAD_TOKENS = 4;
/** A tool call's id, wrapper and argument framing. */
export const TOOL_CALL_OVERHEAD_TOKENS = 8;
/**
 * An image's cost depends on its pixels and the provider (Anthropic ≈ w·h/750, capped near
 * 1,600; OpenAI 85 + 170 per 512px tile); without decoding it, assume a typical screenshot.
 */
export const IMAGE_TOKENS = 1_200;

function partTokens(part: EstimablePart): number {
  switch (part.type) {
    case "text":
      return "text" in part && typeof part.text === "string" ? estimateTokens(part.text) : 0;
    case "thinking":
      return "thinking" in part && typeof part.thinking === "string" ? estimateTokens(part.thinking) : 0;
    case "toolCall": {
      if (!("name" in part)) return TOOL_CALL_OVERHEAD_TOKENS;
      const args = JSON.stringify(part.arguments ?? {}) ?? "";
      return TOOL_CALL_OVERHEAD_TOKENS + estimateTokens(part.name) + estimateTokens(args);
    }
    case "image":
      return IMAGE_TOKENS;
    default:
      return 0;
  }
}

/** Estimated input tokens of one chat message (pi-ai's user, assistant or toolResult). */
export function estimateMessageTokens(message: EstimableMessage): number {
  if (typeof message.content === "string") return MESSAGE_OVERHEAD_TOKENS + estimateTokens(message.content);
  let sum = MESSAGE_OVERHEAD_TOKENS;
  for (const part of message.content) sum += partTokens(part);
  return sum;
}

// ---------------------------------------------------------------------------------------
// Calibration: follow what the provider reports for this model.

export interface TokenCalibratorOptions {
  /** Weight of a new observation once warmed up (exponential moving average). */
  alpha?: number;
  /** Bounds of the ratio reported/estimated; one odd response cannot swing it further. */
  minRatio?: number;
  maxRatio?: number;
  /** Observations where either count is below this say more about overhead than about text. */
  minTokens?: number;
  /** Starting ratio, e.g. one remembered from an earlier run with the same model. */
  initialRatio?: number;
}

/**
 * Scales the heuristic by the ratio reported/estimated seen on this model's responses.
 * Until 1/alpha observations have arrived it averages them all (so the first one counts
 * fully); after that each new one moves the ratio by `alpha`.
 */
export class TokenCalibrator {
  readonly #alpha: number;
  readonly #minRatio: number;
  readonly #maxRatio: number;
  readonly #minTokens: number;
  #ratio: number;
  #observations = 0;

  constructor(options: TokenCalibratorOptions = {}) {
    this.#alpha = options.alpha ?? 0.2;
    this.#minRatio = options.minRatio ?? 0.5;
    this.#maxRatio = options.maxRatio ?? 2;
    this.#minTokens = options.minTokens ?? 256;
    this.#ratio = this.#clamp(options.initialRatio ?? 1);
  }

  /** Reported tokens per estimated token, within [minRatio, maxRatio]. */
  get ratio(): number {
    return this.#ratio;
  }

  /** How many observations have been taken into account. */
  get observations(): number {
    return this.#observations;
  }

  /** Calibrated estimate of `text`. */
  estimate(text: string): number {
    return this.scale(estimateTokens(text));
  }

  /** Calibrated value of a raw estimate (a sum of estimateTokens/estimateMessageTokens). */
  scale(rawEstimate: number): number {
    return Math.ceil(rawEstimate * this.#ratio);
  }

  /**
   * Records one model call: `estimatedInputTokens` is the RAW (uncalibrated) estimate of
   * the request, `reportedInputTokens` every prompt token the provider counted (input plus
   * cache reads and writes).
   */
  observe(estimatedInputTokens: number, reportedInputTokens: number): void {
    if (!(estimatedInputTokens >= this.#minTokens && reportedInputTokens >= this.#minTokens)) return;
    if (!Number.isFinite(estimatedInputTokens) || !Number.isFinite(reportedInputTokens)) return;
    const sample = this.#clamp(reportedInputTokens / estimatedInputTokens);
    this.#observations++;
    const weight = Math.max(this.#alpha, 1 / this.#observations);
    this.#ratio = this.#clamp(this.#ratio + weight * (sample - this.#ratio));
  }

  #clamp(ratio: number): number {
    return Math.min(this.#maxRatio, Math.max(this.#minRatio, ratio));
  }
}
