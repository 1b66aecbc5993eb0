// The CPU a new process spends on workspace snapshots, apart from everything else a `reson run`
// does (start-up, the model, the commands), which on the shared 2-core machine moves a 50-step
// run's time by ±10 % from turn to turn and hides changes of a few ms. Each turn is a new
// process per build (cold code, as in a run) that takes the first snapshot of a 10,000-file,
// 200 MB repository with a valid saved index, then 50 steps changing 1–5 files each with a
// snapshot before and after and the diff between them (as RunSnapshots does), then saves the
// index: process.cpuUsage() and wall time of each part. Builds alternate turn by turn; the
// figures are medians and the median of each turn's ratio (after / before).
//   npm run build && node bench/snapshot-capture-cpu.mjs --before /path/to/checkout [--pairs 15]
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";

const FILES = 10_000;
const FOLDERS = 500;
const SIZE = Math.floor((200 * 1024 * 1024) / FILES);
const paths = Array.from(
  { length: FILES },
  (_, i) => `pkg${(i % FOLDERS) % 20}/mod${i % FOLDERS}/file${i}.txt`,
);

if (process.argv[2] === "--child") {
  // One turn of one build: node snapshot-capture-cpu.mjs --child <lib> <home> <workspace> <turn>
  const [lib, home, ws, turn] = process.argv.slice(3);
  const { SnapshotStore, diffTrees } = await import(lib);
  const cpu = () => {
    const used = process.cpuUsage();
    return (used.user + used.system) / 1000;
  };
  const store = SnapshotStore.open(home, ws);
  let cpuAt = cpu();
  let wallAt = performance.now();
  await store.capture();
  const first = { cpu: cpu() - cpuAt, wall: performance.now() - wallAt };
  const steps = { cpu: 0, wall: 0 };
  for (let step = 0; step < 50; step++) {
    cpuAt = cpu();
    wallAt = performance.now();
    const before = (await store.capture()).tree;
    steps.cpu += cpu() - cpuAt;
    steps.wall += performance.now() - wallAt;
    for (let k = 0; k <= step % 5; k++)
      writeFileSync(join(ws, paths[(step * 7919 + k * 104729 + Number(turn) * 31) % FILES]), `${step}\n`, {
        flag: "a",
      });
    cpuAt = cpu();
    wallAt = performance.now();
    const after = await store.capture();
    diffTrees(store.objects, before, after.tree);
    steps.cpu += cpu() - cpuAt;
    steps.wall += performance.now() - wallAt;
  }
  cpuAt = cpu();
  store.saveIndex();
  const save = cpu() - cpuAt;
  console.log(
    JSON.stringify({
      firstCpu: first.cpu,
      firstWall: first.wall,
      stepsCpu: steps.cpu,
      stepsWall: steps.wall,
      saveCpu: save,
      rssMB: process.memoryUsage().rss / 1048576,
    }),
  );
  process.exit(0);
}

const arg = (name, fallback) => {
  const at = process.argv.indexOf(name);
  return at > 0 ? process.argv[at + 1] : fallback;
};
const pairs = Number(arg("--pairs", "15"));
const beforeRoot = arg("--before", undefined);
const builds = [{ name: "after", lib: resolve(import.meta.dirname, "../dist/snapshots/index.js") }];
if (beforeRoot) builds.unshift({ name: "before", lib: resolve(beforeRoot, "dist/snapshots/index.js") });
const load = () => readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");

const base = mkdtempSync("/var/tmp/reson-bench-capture-cpu-");
const ws = join(base, "repo");
for (const path of paths) {
  mkdirSync(join(ws, path, ".."), { recursive: true });
  writeFileSync(join(ws, path), randomBytes(SIZE / 2).toString("hex"));
}
const turn = (build, n) =>
  JSON.parse(
    execFileSync(process.execPath, [import.meta.filename, "--child", build.lib, build.home, ws, String(n)], {
      encoding: "utf8",
    }),
  );
const loadAtStart = load();
for (const build of builds) {
  build.home = join(base, `home-${build.name}`);
  build.turns = [];
  turn(build, 0); // hashes and stores everything, saves the index
}
for (let n = 1; n <= pairs; n++)
  for (const build of n % 2 ? builds : [...builds].reverse()) build.turns.push(turn(build, n));
rmSync(base, { recursive: true, force: true });

const median = (xs) => {
  const sorted = [...xs].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};
console.log(`${pairs} turns per build, load ${loadAtStart} at the start, ${load()} at the end (2 cores)`);
for (const key of Object.keys(builds[0].turns[0])) {
  const cells = builds.map((build) => `${build.name} ${median(build.turns.map((t) => t[key])).toFixed(1)}`);
  const ratio =
    builds.length === 2
      ? `; median turn ratio ${median(builds[1].turns.map((t, i) => t[key] / builds[0].turns[i][key])).toFixed(3)}`
      : "";
  console.log(`- ${key}: ${cells.join(", ")}${ratio}`);
}
