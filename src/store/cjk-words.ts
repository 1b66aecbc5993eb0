// Chinese word segmentation for the lexical index, by jieba (@node-rs/jieba, which ships its
// dictionary). Its whole dictionary (349k words) costs ~300 ms to load, so the build writes
// the 60k most frequent words to dist/jieba-dict.txt (~20 ms), used when present; either is
// loaded on the first text that has CJK in it, once per process, and English-only work never
// pays for it. Index and queries of one installation cut with the same dictionary.
// Where the native package cannot load (a platform without a build), runs fall back to
// character bigrams, which need no dictionary; the fallback is reported by cjkSegmenter().
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
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

function load(): Segmenter | undefined {
  const started = performance.now();
  try {
    const require = createRequire(import.meta.url);
    const { Jieba } = require("@node-rs/jieba") as { Jieba: { withDict(dict: Uint8Array): Segmenter } };
    // dist/store/ and dist/cli-bundle/ both find the build's dictionary one folder up.
    const trimmed = fileURLToPath(new URL("../jieba-dict.txt", import.meta.url));
    const dictionary = existsSync(trimmed) ? trimmed : require.resolve("@node-rs/jieba/dict.txt");
    const loaded = Jieba.withDict(readFileSync(dictionary));
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

/** Which segmenter this process uses, and what loading it cost. */
export function cjkSegmenter(): CjkSegmenterState {
  return { ...state };
}
