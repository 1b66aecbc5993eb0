// Chinese word segmentation for the lexical index, by jieba (@node-rs/jieba, which ships its
// dictionary). Its whole dictionary (349k words) costs ~300 ms to load, so the build writes
// the 60k most frequent words to dist/jieba-dict.txt (~20 ms), used when present; either is
// loaded on the first text that has CJK in it, once per process, and English-only work never
// pays for it. Index and queries of one installation cut with the same dictionary.
// Where the native package cannot load (a platform without a build), runs fall back to
// character bigrams, which need no dictionary; the fallback is reported by cjkSegmenter().
// The dictionary's frequencies say how common a word is (its Zipf value, for the weight of a
// word in retrieval), and which pieces of a long word are words of their own.
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { SortedLines } from "./sorted-lines.js";
import { characterNgrams } from "./text-terms.js";

interface Segmenter {
  cut(sentence: string, hmm?: boolean): string[];
}

export interface CjkSegmenterState {
  kind: "jieba" | "bigrams" | "not loaded";
  /** The dictionary jieba loaded: the build's trimmed one, or the package's whole one. */
  dictionary?: string;
  /** How long loading took (the dictionary mostly), ms. */
  loadMs?: number;
  /** Why jieba is not used, when it is not. */
  reason?: string;
}

let segmenter: Segmenter | undefined;
let state: CjkSegmenterState = { kind: "not loaded" };
let dictionaryText: string | undefined;
let zipfOf: ((word: string) => number | undefined) | undefined;

function load(): Segmenter | undefined {
  const started = performance.now();
  try {
    const require = createRequire(import.meta.url);
    const { Jieba } = require("@node-rs/jieba") as { Jieba: { withDict(dict: Uint8Array): Segmenter } };
    // dist/store/ and dist/cli-bundle/ both find the build's dictionary one folder up.
    const trimmed = fileURLToPath(new URL("../jieba-dict.txt", import.meta.url));
    const dictionary = existsSync(trimmed) ? trimmed : require.resolve("@node-rs/jieba/dict.txt");
    const bytes = readFileSync(dictionary);
    const loaded = Jieba.withDict(bytes);
    dictionaryText = bytes.toString("utf8");
    state = { kind: "jieba", dictionary, loadMs: performance.now() - started };
    return loaded;
  } catch (error) {
    // Handled: bigrams index Chinese well enough to find a lesson, only less precisely.
    state = {
      kind: "bigrams",
      loadMs: performance.now() - started,
      reason: error instanceof Error ? error.message : String(error),
    };
    return undefined;
  }
}

/** The words of a run of CJK characters (no spaces inside). */
export function cjkWords(run: string): string[] {
  if (state.kind === "not loaded") segmenter = load();
  if (!segmenter) return characterNgrams(run, 2);
  return segmenter.cut(run, true);
}

/** A dictionary line's frequency, or undefined for none. */
function countOf(rest: string): number | undefined {
  const count = Number.parseInt(rest, 10);
  return count > 0 ? count : undefined;
}

/**
 * Zipf values (log10 per billion words) of the dictionary's words, on first use: searched in
 * place in the dictionary's text, sorted by word as jieba ships it (sorted-lines.ts); read into
 * a Map by index only for a dictionary out of order.
 */
function dictionaryZipf(): (word: string) => number | undefined {
  if (zipfOf) return zipfOf;
  const text = dictionaryText ?? "";
  dictionaryText = undefined;
  const sorted = SortedLines.of(text);
  if (sorted) {
    let total = 0;
    for (const rest of sorted.rests()) total += countOf(rest) ?? 0;
    const perBillion = Math.log10(1e9 / total);
    zipfOf = (word) => {
      const rest = sorted.get(word);
      const count = rest === undefined ? undefined : countOf(rest);
      return count === undefined ? undefined : Math.log10(count) + perBillion;
    };
    return zipfOf;
  }
  const counts = new Map<string, number>();
  let total = 0;
  for (let at = 0; at < text.length; ) {
    const newline = text.indexOf("\n", at);
    const lineEnd = newline < 0 ? text.length : newline;
    const space = text.indexOf(" ", at);
    const count = space > at && space < lineEnd ? countOf(text.slice(space + 1, lineEnd)) : undefined;
    if (count !== undefined) {
      counts.set(text.slice(at, space), count);
      total += count;
    }
    at = lineEnd + 1;
  }
  const perBillion = Math.log10(1e9 / total);
  zipfOf = (word) => {
    const count = counts.get(word);
    return count === undefined ? undefined : Math.log10(count) + perBillion;
  };
  return zipfOf;
}

/**
 * How common a Chinese word is: its Zipf value in jieba's dictionary, undefined for a word the
 * dictionary does not hold (rare), null when there is no dictionary (every word weighs alike).
 */
export function cjkZipf(word: string): number | undefined | null {
  if (state.kind === "not loaded") segmenter = load();
  if (!segmenter) return null;
  return dictionaryZipf()(word);
}

/**
 * The words of a CJK run, each with the forms a text may share with another: the word, the
 * dictionary words inside it (正则表达式: 正则, 表达式), and for a word the dictionary does not
 * know (one jieba's HMM made up, 时卡死) its character pairs. A key and a task cut the same
 * phrase apart differently as their contexts differ; by their pieces they still meet.
 */
export function cjkWordForms(run: string): string[][] {
  const words = cjkWords(run);
  if (!segmenter) return words.map((word) => [word]);
  const zipf = dictionaryZipf();
  const known = { has: (word: string) => zipf(word) !== undefined };
  return words.map((word) => {
    const chars = Array.from(word);
    if (chars.length < 3) return [word];
    const forms = new Set([word]);
    for (const n of [2, 3]) {
      for (let i = 0; i + n <= chars.length; i++) {
        const piece = chars.slice(i, i + n).join("");
        if (piece !== word && (known.has(piece) || (n === 2 && !known.has(word)))) forms.add(piece);
      }
    }
    return [...forms];
  });
}

/** Which segmenter this process uses, and what loading it cost. */
export function cjkSegmenter(): CjkSegmenterState {
  return { ...state };
}
