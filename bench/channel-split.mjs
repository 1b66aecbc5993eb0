// How long splitting a long answer into chat messages takes (src/channels/split-text.ts), on the
// event loop of `reson serve`, at each attempt to send it: answers of 100 KB, 400 KB and 1 MB of
// prose with paragraphs, code blocks, CJK and emoji, cut at Telegram's 4096 characters. Medians
// of --rounds in one process; --before <split-text.js> times another build's module in the same
// turns and checks that both give the same parts.
//   npm run build && node bench/channel-split.mjs [--rounds 9] [--before /path/to/split-text.js]
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { performance } from "node:perf_hooks";
import { pathToFileURL } from "node:url";

const ROOT = resolve(import.meta.dirname, "..");
const MODULE = resolve(ROOT, "dist/channels/split-text.js");
if (!existsSync(MODULE)) {
  console.error("dist/channels/split-text.js is missing: run `npm run build` first.");
  process.exit(1);
}
const arg = (name, fallback) => {
  const at = process.argv.indexOf(name);
  return at > 0 ? process.argv[at + 1] : fallback;
};
const ROUNDS = Number(arg("--rounds", "9"));
const BEFORE = arg("--before", undefined);
const MAX_CHARS = 4096;

const builds = [["after", (await import(pathToFileURL(MODULE).href)).splitForPlatform]];
if (BEFORE) builds.unshift(["before", (await import(pathToFileURL(resolve(BEFORE)).href)).splitForPlatform]);

/** A model's long answer: paragraphs, a code block now and then, CJK and emoji, deterministic. */
function answer(bytes) {
  const pieces = [
    "The service reads its settings once at start and keeps them for the whole run. ",
    "会话在每一步之后都会被保存，所以崩溃之后可以继续。",
    "Done ✅ — the tests pass 🎉 and the build is green. ",
    "```ts\nconst answer = await agent.run({ task, signal });\nconsole.log(answer.text);\n```\n",
    "\n\n",
    "A long path: /work/project/src/channels/telegram/telegram-adapter.ts:118:7 ",
    "\n",
  ];
  let text = "";
  for (let i = 0; Buffer.byteLength(text) < bytes; i++) text += pieces[(i * 7 + (i >> 3)) % pieces.length];
  return text;
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
};

console.log(`splitForPlatform at ${MAX_CHARS} characters, median of ${ROUNDS} rounds (ms)`);
for (const size of [100_000, 400_000, 1_000_000]) {
  const text = answer(size);
  const times = new Map(builds.map(([name]) => [name, []]));
  const outputs = new Map();
  for (let round = 0; round < ROUNDS; round++)
    for (const [name, split] of builds) {
      const started = performance.now();
      const parts = split(text, MAX_CHARS);
      times.get(name).push(performance.now() - started);
      outputs.set(name, parts);
    }
  const row = builds.map(([name]) => `${name} ${median(times.get(name)).toFixed(2)}`).join("  ");
  const parts = outputs.get("after").length;
  const same = BEFORE
    ? JSON.stringify(outputs.get("before")) === JSON.stringify(outputs.get("after"))
      ? "  same parts"
      : "  PARTS DIFFER"
    : "";
  const ratio = BEFORE
    ? `  (${(median(times.get("before")) / median(times.get("after"))).toFixed(0)} ×)`
    : "";
  console.log(`${(size / 1000).toFixed(0).padStart(5)} KB  ${parts} parts  ${row}${ratio}${same}`);
}
