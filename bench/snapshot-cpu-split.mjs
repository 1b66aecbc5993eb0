// Where the loop thread's time goes in a `reson run`, from a V8 CPU profile (node --cpu-prof):
// each sample's self time is put in one bucket by what is on its stack, so two runs (snapshots
// on and off) can be compared bucket by bucket. Used by bench/snapshot.mjs --profile. Names are
// those the CLI bundle keeps (class methods; module functions are renamed by the minifier).
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

/** Buckets, first match wins (checked from the sampled frame outwards). */
const BUCKETS = [
  ["idle", (names) => names[0] === "(idle)"],
  ["garbage collection", (names) => names[0] === "(garbage collector)"],
  [
    "snapshot: first walk (index load, stat walk, watches)",
    (names, first) => first && names.includes("captureNow"),
  ],
  ["snapshot: captures of steps (settle, changed paths, objects)", (names) => names.includes("captureNow")],
  ["snapshot: point records and diffs", (names) => names.includes("appendPoint") || names.includes("point")],
  ["spawning commands (fork and exec)", (names) => names[0] === "spawn"],
  [
    "reading /proc/self/fdinfo (sandbox stdio)",
    (names) => names[0] === "readFileUtf8" && !names.includes("captureNow"),
  ],
  ["everything else", () => true],
];

/** ms per bucket in one profile file; the first walk is every capture sample before the first spawn. */
export function splitOf(file) {
  const profile = JSON.parse(readFileSync(file, "utf8"));
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const stacks = new Map();
  const stackOf = (id) => {
    let names = stacks.get(id);
    if (!names) {
      names = [];
      for (let at = id; at !== undefined; at = parent.get(at))
        names.push(byId.get(at).callFrame.functionName);
      stacks.set(id, names);
    }
    return names;
  };
  const totals = new Map(BUCKETS.map(([name]) => [name, 0]));
  let beforeFirstSpawn = true;
  for (let i = 0; i < profile.samples.length; i++) {
    const names = stackOf(profile.samples[i]);
    if (names[0] === "spawn") beforeFirstSpawn = false;
    const [bucket] = BUCKETS.find(([, test]) => test(names, beforeFirstSpawn));
    totals.set(bucket, totals.get(bucket) + (profile.timeDeltas[i] ?? 0) / 1000);
  }
  return totals;
}

/** The median of each bucket over the profiles in `dir`. */
export function medianSplit(dir) {
  const splits = readdirSync(dir)
    .filter((name) => name.endsWith(".cpuprofile"))
    .map((name) => splitOf(join(dir, name)));
  const median = (xs) => {
    const sorted = [...xs].sort((a, b) => a - b);
    const mid = sorted.length >> 1;
    return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
  };
  return new Map(BUCKETS.map(([name]) => [name, median(splits.map((split) => split.get(name)))]));
}

/**
 * Runs each variant `runs` times (3 unless told) under --cpu-prof (`run(variant, env, turn)` starts one run with
 * `env` added) and returns the medians as the lines of a table.
 */
export async function profileSplit(variants, run, dir, runs = 3) {
  for (let turn = 0; turn < runs; turn++)
    for (const variant of turn % 2 ? [...variants].reverse() : variants) {
      const flags = `--cpu-prof --cpu-prof-dir=${join(dir, variant.name)} --cpu-prof-interval 250`;
      await run(variant, { NODE_OPTIONS: flags }, turn);
    }
  const splits = variants.map((variant) => medianSplit(join(dir, variant.name)));
  const load = readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
  const lines = [
    "",
    `Loop thread of a 50-step run (node --cpu-prof, median of ${runs} runs each, ms; load ${load}):`,
    "",
    `| | ${variants.map((variant) => (variant.name === "off" ? "snapshots off" : `on (${variant.name})`)).join(" | ")} |`,
    `| --- |${variants.map(() => " ---: |").join("")}`,
  ];
  for (const bucket of splits[0].keys())
    lines.push(`| ${bucket} | ${splits.map((split) => split.get(bucket).toFixed(1)).join(" | ")} |`);
  lines.push("");
  return lines;
}
