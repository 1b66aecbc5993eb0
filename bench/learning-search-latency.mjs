// What lesson retrieval costs a run, in process, robust to a loaded machine (spawn-to-request
// times in learning.mjs swing by hundreds of ms at load 10): for each build given, a project of
// 0 or 5,000 synthetic rules (learning-rules.mjs) is seeded through that build's dist/store,
// then fresh processes time the run's lookup (matchingExperiences, as a run calls it) once cold
// (what the first search of a process pays: word tables, jieba) and warm (median of 15), for an
// English and a Chinese task. Builds and sizes alternate sample by sample, so load drifts hit
// them alike; medians of the samples are reported.
//   node bench/learning-search-latency.mjs [--samples 7] <tree> [<tree> …]   (trees with a built dist/)
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { synthesiseRules } from "./learning-rules.mjs";

const args = process.argv.slice(2);
const samplesAt = args.indexOf("--samples");
const SAMPLES = samplesAt >= 0 ? Number(args[samplesAt + 1]) : 7;
const trees = args.filter((a, i) => !a.startsWith("--") && i !== samplesAt + 1).map((t) => resolve(t));
if (trees.length === 0) trees.push(resolve(import.meta.dirname, ".."));
const TASKS = {
  en: "The importer fails again: database is locked",
  zh: "前端构建到一半就崩了，提示内存不够",
};
const scratch = mkdtempSync(join(tmpdir(), "reson-search-latency-"));
const projectKey = "latency".padEnd(64, "0");

const probe = (tree, home, task) => `
const started = performance.now();
const { openStore } = await import(${JSON.stringify(join(tree, "dist/store/index.js"))});
const { matchingExperiences } = await import(${JSON.stringify(join(tree, "dist/memory/index.js"))});
const store = await openStore({ home: ${JSON.stringify(home)} });
const opened = performance.now();
const deps = { store, projectKey: ${JSON.stringify(projectKey)}, redact: (t) => t };
let at = performance.now();
await matchingExperiences(deps, ${JSON.stringify(task)}, 4);
const cold = performance.now() - at;
const warm = [];
for (let i = 0; i < 15; i++) {
  at = performance.now();
  await matchingExperiences(deps, ${JSON.stringify(task)}, 4);
  warm.push(performance.now() - at);
}
warm.sort((a, b) => a - b);
await store.close();
console.log(JSON.stringify({ cold, warm: warm[7], openMs: opened - started }));
`;

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

try {
  const cells = [];
  for (const [i, tree] of trees.entries()) {
    const { openStore } = await import(join(tree, "dist/store/index.js"));
    for (const size of [0, 5000]) {
      const home = join(scratch, `${i}-${size}`);
      const store = await openStore({ home });
      const rules = synthesiseRules(size, projectKey);
      for (let at = 0; at < rules.length; at += 500) {
        await store.apply(
          rules.slice(at, at + 500).map((experience) => ({ op: "insertExperience", experience })),
        );
      }
      // One rule even in the "0" project, so the search runs (an empty project returns at once).
      if (size === 0) {
        await store.apply([{ op: "insertExperience", experience: synthesiseRules(1, projectKey)[0] }]);
      }
      await store.close();
      for (const lang of Object.keys(TASKS)) cells.push({ tree, size, lang, home, samples: [] });
    }
  }
  for (let s = 0; s < SAMPLES; s++) {
    for (const cell of cells) {
      const script = join(scratch, "probe.mjs");
      writeFileSync(script, probe(cell.tree, cell.home, TASKS[cell.lang]));
      cell.samples.push(JSON.parse(execFileSync(process.execPath, [script], { encoding: "utf8" })));
    }
  }
  console.log(`Lesson lookup in process, median of ${SAMPLES} fresh processes per cell (ms)\n`);
  console.log("| build | rules | task | first search of a process | warm search (median of 15) |");
  console.log("|---|---|---|---|---|");
  for (const c of cells) {
    console.log(
      `| ${c.tree} | ${c.size === 0 ? 1 : c.size} | ${c.lang} | ${median(c.samples.map((x) => x.cold)).toFixed(1)} | ${median(c.samples.map((x) => x.warm)).toFixed(2)} |`,
    );
  }
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
