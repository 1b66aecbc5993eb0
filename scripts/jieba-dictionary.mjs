// Writes dist/jieba-dict.txt: the most frequent words of the dictionary @node-rs/jieba ships
// (word, frequency, tag per line), which segments technical Chinese as well for reson's index
// and loads in a tenth of the time (the whole one costs ~300 ms per process; see
// bench/learning.mjs). src/store/cjk-words.ts loads it when present, else the whole one.
import { readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { resolve } from "node:path";

const WORDS = 60_000;
const require = createRequire(import.meta.url);
const lines = readFileSync(require.resolve("@node-rs/jieba/dict.txt"), "utf8").split("\n").filter(Boolean);
const frequency = (line) => Number(line.split(" ")[1]) || 0;
const kept = lines
  .map((line, at) => ({ line, at, frequency: frequency(line) }))
  .sort((a, b) => b.frequency - a.frequency || a.at - b.at)
  .slice(0, WORDS)
  .sort((a, b) => a.at - b.at)
  .map((entry) => entry.line);
writeFileSync(resolve(import.meta.dirname, "../dist/jieba-dict.txt"), `${kept.join("\n")}\n`);
