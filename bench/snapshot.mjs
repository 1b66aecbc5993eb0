// Workspace snapshots on a 10,000-file, 200 MB repository (issue 28's measures):
//  1. 10,000 lstats (the floor of any walk), the first snapshot (hash and store everything),
//     a new process's first snapshot (a walk that hashes only what its saved index does not
//     vouch for), then 100 steps that change 1–5 files each: ms per snapshot (p50/p95) and
//     bytes stored per step against bytes changed;
//  2. a 50-step `reson run` against a zero-latency model, every step a command changing 1–5
//     files, with snapshots on and off (RESON_SNAPSHOTS), alternating: medians and the ratio;
//  3. `reson rewind` of a run that deleted 1,000 files: wall time, and every byte back.
// `--before <checkout>` measures another build (a checkout with its dist built) in the same
// turns, each with its own $RESON_HOME: 1 and 2 alternate between the two builds, and the
// figures come side by side with their ratios.
//   npm run build && node bench/snapshot.mjs [--pairs 5] [--keep] [--before /path/to/checkout]
//     [--out FILE] (default: results/snapshot-<date>.md, replacing that day's file)
//     [--rewind-only] (part 3 alone, --pairs turns of each build) [--cpu-prof DIR] (profiles
//     of each `reson rewind` process)
//     [--profile] (after part 2: 3 more 50-step runs of each, under node --cpu-prof, and where
//     the loop thread's time went, bucket by bucket: bench/snapshot-cpu-split.mjs)
//     [--profile-runs N] (that many profiled runs of each instead of 3: each bucket varies by
//     ±5-10 ms between runs on a loaded machine)
//     [--model-latency MS] (the model answers each call after MS: how much of the first walk a
//     model's own time hides, as a real model's would) [--runs-only] (part 2 alone)
import { execFileSync, spawn } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { createServer } from "node:http";
import { join, resolve } from "node:path";
import { performance } from "node:perf_hooks";
import { profileSplit } from "./snapshot-cpu-split.mjs";

if (process.argv.includes("--help")) {
  console.log(
    "node bench/snapshot.mjs [--pairs 5] [--keep] [--before /path/to/checkout] [--out FILE] [--rewind-only] [--runs-only] [--model-latency MS] [--cpu-prof DIR] [--profile] [--profile-runs 3]\n" +
      "  (npm run build first; see the comment at the top of this file)",
  );
  process.exit(0);
}
const arg = (name, fallback) => {
  const at = process.argv.indexOf(name);
  return at > 0 ? Number(process.argv[at + 1]) : fallback;
};
const pairs = arg("--pairs", 5);
const beforeAt = process.argv.indexOf("--before");
const BEFORE = beforeAt > 0 ? resolve(process.argv[beforeAt + 1]) : undefined;
const buildAt = (root) => ({
  cli: resolve(root, "bin/reson.js"),
  lib: resolve(root, "dist/snapshots/index.js"),
});
const AFTER_BUILD = buildAt(resolve(import.meta.dirname, ".."));
// --rewind-only: only part 3 (the rewind of 1,000 deleted files), by each build, --pairs turns.
const REWIND_ONLY = process.argv.includes("--rewind-only");
// --cpu-prof DIR: each `reson rewind` process writes a CPU profile there (where its time goes).
const profAt = process.argv.indexOf("--cpu-prof");
const PROFILE_ENV =
  profAt > 0 ? { NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${resolve(process.argv[profAt + 1])}` } : {};
const CLI = AFTER_BUILD.cli;
// --model-latency MS: each model call is answered after MS (0: the zero-latency model).
const MODEL_LATENCY = arg("--model-latency", 0);
// --runs-only: only part 2 (the 50- and 10-step runs).
const RUNS_ONLY = process.argv.includes("--runs-only");
const { SnapshotStore, diffTrees, planRestore, applyOps } = await import(AFTER_BUILD.lib);

const FILES = 10_000;
const FOLDERS = 500;
const BYTES = 200 * 1024 * 1024;
const base = mkdtempSync("/var/tmp/reson-bench-snap-");
const ws = join(base, "repo");
const home = join(base, "home");
mkdirSync(home);
/** The builds measured: this one, and with --before another, each with its own home. */
const builds = [{ name: "after", ...AFTER_BUILD, home, Store: SnapshotStore, planRestore, applyOps }];
if (BEFORE) {
  const before = buildAt(BEFORE);
  const beforeHome = join(base, "home-before");
  mkdirSync(beforeHome);
  const lib = await import(before.lib);
  builds.unshift({
    name: "before",
    ...before,
    home: beforeHome,
    Store: lib.SnapshotStore,
    planRestore: lib.planRestore,
    applyOps: lib.applyOps,
  });
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const pct = (xs, p) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))];
const ms = (x) => `${x.toFixed(1)} ms`;
const mb = (x) => `${(x / 1024 / 1024).toFixed(1)} MB`;
const lines = [];
const say = (line) => {
  console.log(line);
  lines.push(line);
};

// The repository: 500 folders in 20 groups, 20 files each of ~20 KB of text.
const paths = [];
for (let i = 0; i < FILES; i++) {
  const folder = i % FOLDERS;
  const path = `pkg${folder % 20}/mod${folder}/file${i}.txt`;
  paths.push(path);
}
const size = Math.floor(BYTES / FILES);
for (const path of paths) {
  mkdirSync(join(ws, path, ".."), { recursive: true });
  writeFileSync(join(ws, path), randomBytes(size / 2).toString("hex"));
}
writeFileSync(join(ws, ".gitignore"), "node_modules/\n");
say(`# Workspace snapshots, ${new Date().toISOString().slice(0, 10)}`);
say("");
const commitOf = (root) => {
  try {
    return execFileSync("git", ["-C", root, "rev-parse", "--short", "HEAD"], { encoding: "utf8" }).trim();
  } catch {
    return "not a git checkout";
  }
};
if (BEFORE)
  say(
    `Builds, measured in the same turns: after = ${resolve(import.meta.dirname, "..")} (${commitOf(resolve(import.meta.dirname, ".."))}), before = ${BEFORE} (${commitOf(BEFORE)}).`,
  );
say(
  `Repository: ${FILES} files in ${FOLDERS} folders, ${mb(BYTES)}; load ${readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ")} on 2 cores.`,
);

if (!REWIND_ONLY && !RUNS_ONLY) {
  // 1. The floor: lstat every file.
  const times = [];
  for (let r = 0; r < 5; r++) {
    const start = performance.now();
    for (const path of paths) lstatSync(join(ws, path));
    times.push(performance.now() - start);
  }
  say(`- 10,000 lstats: median ${ms(median(times))} (min ${ms(Math.min(...times))})`);
}

function storeBytes() {
  let total = 0;
  const objects = join(home, "snapshots");
  const walk = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else total += lstatSync(path).size;
    }
  };
  walk(objects);
  return total;
}

if (!REWIND_ONLY && !RUNS_ONLY) {
  // 1, per build: the first snapshot, a new process's first snapshot (alternating between the
  // builds), and 100 steps of 1–5 changed files (in blocks of 20, alternating).
  const firstWalks = new Map(builds.map((build) => [build.name, []]));
  const stepTimes = new Map(builds.map((build) => [build.name, { steps: [], stored: [], changed: [] }]));
  const trees = new Map();
  for (const build of builds) {
    const store = build.Store.open(build.home, ws);
    const start = performance.now();
    const first = await store.capture();
    say(
      `- first snapshot (hash and store all)${BEFORE ? ` [${build.name}]` : ""}: ${ms(performance.now() - start)}, ${mb(first.addedBytes)} stored`,
    );
    store.saveIndex();
    store.close();
    trees.set(build.name, first.tree);
  }
  for (let r = 0; r < 3; r++) {
    for (const build of r % 2 ? [...builds].reverse() : builds) {
      // A new process: the walk with the saved index, nothing to hash.
      const store = build.Store.open(build.home, ws);
      const start = performance.now();
      const again = await store.capture();
      firstWalks.get(build.name).push(performance.now() - start);
      if (again.tree !== trees.get(build.name))
        throw new Error("a walk of an unchanged folder gave another tree");
      store.close();
    }
  }
  {
    let step = 0;
    for (let block = 0; block < 5; block++) {
      for (const build of block % 2 ? [...builds].reverse() : builds) {
        const store = build.Store.open(build.home, ws);
        let tree = (await store.capture()).tree;
        const figures = stepTimes.get(build.name);
        for (let k = 0; k < 20; k++, step++) {
          const count = 1 + (step % 5);
          let bytes = 0;
          for (let j = 0; j < count; j++) {
            const path = paths[(step * 7919 + j * 104729) % FILES];
            const content = randomBytes(size / 2).toString("hex");
            writeFileSync(join(ws, path), content);
            bytes += content.length;
          }
          const start = performance.now();
          const capture = await store.capture();
          figures.steps.push(performance.now() - start);
          figures.stored.push(capture.addedBytes);
          figures.changed.push(bytes);
          const diff = diffTrees(store.objects, tree, capture.tree);
          // The build before 548b683 lags one change behind in a store opened again in the same
          // process (as here): its captures do the same work, one step late.
          if (diff.length !== count && build.name !== "before")
            throw new Error(`step ${step}: ${diff.length} changes seen, ${count} made`);
          if (capture.mode !== "watch") throw new Error(`step ${step}: the watcher was not used`);
          tree = capture.tree;
        }
        store.saveIndex();
        store.close();
      }
    }
  }
  const ratioOf = (name, figure) => {
    if (!BEFORE) return "";
    const before = figure(name === "after" ? "before" : name);
    return name === "after" ? ` (${(figure("after") / before).toFixed(3)} × before)` : "";
  };
  for (const build of builds) {
    const tag = BEFORE ? ` [${build.name}]` : "";
    const walk = (name) => median(firstWalks.get(name));
    say(
      `- a new process's first snapshot (full stat walk, index valid)${tag}: median ${ms(walk(build.name))}${ratioOf(build.name, walk)} — also the cost of every snapshot where no watcher works`,
    );
  }
  for (const build of builds) {
    const tag = BEFORE ? ` [${build.name}]` : "";
    const { steps, stored, changed } = stepTimes.get(build.name);
    const p50 = (name) => median(stepTimes.get(name).steps);
    const ratio = stored.reduce((a, b) => a + b, 0) / changed.reduce((a, b) => a + b, 0);
    say(
      `- snapshot after a step changing 1–5 files (watcher)${tag}: p50 ${ms(p50(build.name))}${ratioOf(build.name, p50)}, p95 ${ms(pct(steps, 0.95))}; ` +
        `stored per step ${(median(stored) / 1024).toFixed(1)} KB median for ${(median(changed) / 1024).toFixed(1)} KB changed (all steps: ${ratio.toFixed(3)} × the bytes changed, trees included)`,
    );
  }
}

// A zero-latency model: a command per step, then a final answer after `steps` results.
let plan = { steps: 0, command: () => "" };
const server = createServer((req, res) => {
  const chunks = [];
  req.on("data", (c) => chunks.push(c));
  req.on("end", () => {
    const body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
    const done = body.messages.filter((m) => m.role === "tool").length;
    const head = { id: "c", object: "chat.completion.chunk", created: 0, model: "fake" };
    const delta =
      done >= plan.steps
        ? { role: "assistant", content: "done" }
        : {
            role: "assistant",
            tool_calls: [
              {
                index: 0,
                id: `call_${done}`,
                type: "function",
                function: {
                  name: "execute_command",
                  arguments: JSON.stringify({ command: plan.command(done) }),
                },
              },
            ],
          };
    if (MODEL_LATENCY > 0) setTimeout(answer, MODEL_LATENCY);
    else answer();
    function answer() {
      res.writeHead(200, { "content-type": "text/event-stream" });
      for (const chunk of [
        { ...head, choices: [{ index: 0, delta, finish_reason: null }] },
        {
          ...head,
          choices: [{ index: 0, delta: {}, finish_reason: done >= plan.steps ? "stop" : "tool_calls" }],
        },
        { ...head, choices: [], usage: { prompt_tokens: 10, completion_tokens: 1, total_tokens: 11 } },
      ])
        res.write(`data: ${JSON.stringify(chunk)}\n\n`);
      res.end("data: [DONE]\n\n");
    }
  });
});
await new Promise((r) => server.listen(0, "127.0.0.1", r));
const baseUrl = `http://127.0.0.1:${server.address().port}/v1`;

function reson(args, env = {}, build = { cli: CLI, home }) {
  return new Promise((resolvePromise, reject) => {
    const start = performance.now();
    const child = spawn(process.execPath, [build.cli, ...args], {
      cwd: ws,
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        RESON_HOME: build.home,
        RESON_MEMORY: "off",
        ...env,
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    let err = "";
    child.stdout.on("data", (c) => (out += c));
    child.stderr.on("data", (c) => (err += c));
    child.on("close", (code) => {
      if (code !== 0)
        reject(
          new Error(`reson ${args.join(" ").slice(0, 200)} exited ${code}\n${err}\n${out.slice(-2000)}`),
        );
      else resolvePromise({ wallMs: performance.now() - start, out });
    });
  });
}
const runArgs = (task) => [
  "run",
  "--json",
  "--allow",
  "execute_command",
  "--provider",
  "openai-compatible",
  "--base-url",
  baseUrl,
  "--model",
  "fake",
  "--max-iterations",
  "60",
  task,
];
const runEnd = (out) => JSON.parse(out.trim().split("\n").at(-1));

// 2. 50 steps (and 10, to tell the per-run cost from the per-step one), each a command that
// changes 1–5 files: without snapshots, and with them by each build, in turns whose order
// rotates; ratios are medians of each turn's own ratio (the load drifts between turns).
const stepCommand = (n) =>
  Array.from({ length: 1 + (n % 5) }, (_, k) => `echo step${n} >> ${paths[(n * 31 + k * 977) % FILES]}`).join(
    " && ",
  );
if (!REWIND_ONLY) {
  const command = stepCommand;
  const variants = [
    { name: "off", build: builds.at(-1), mode: "off" },
    ...builds.map((build) => ({ name: build.name, build, mode: "on" })),
  ];
  plan = { steps: 50, command };
  for (const variant of variants.slice(1))
    await reson(runArgs("warm up"), { RESON_SNAPSHOTS: "on" }, variant.build);
  const times = { 10: {}, 50: {} };
  const walls = {};
  for (const variant of variants) {
    times[10][variant.name] = [];
    times[50][variant.name] = [];
    walls[variant.name] = [];
  }
  for (let p = 0; p < pairs; p++) {
    for (const steps of [50, 10]) {
      plan = { steps, command };
      const turn = [...variants.slice(p % variants.length), ...variants.slice(0, p % variants.length)];
      for (const variant of turn) {
        const { wallMs, out } = await reson(
          runArgs(`${steps} steps ${p}`),
          { RESON_SNAPSHOTS: variant.mode },
          variant.build,
        );
        const end = runEnd(out);
        if (end.status !== "completed" || end.steps !== steps + 1)
          throw new Error(`run: ${JSON.stringify(end)}`);
        times[steps][variant.name].push(end.durationMs);
        if (steps === 50) walls[variant.name].push(wallMs);
      }
    }
  }
  const m = (steps, name) => median(times[steps][name]);
  const turnRatio = (series, name) => median(series[name].map((x, i) => x / series.off[i]));
  for (const { name } of variants.slice(1)) {
    const tag = BEFORE ? ` [${name}]` : "";
    const perStep = (m(50, name) - m(50, "off") - (m(10, name) - m(10, "off"))) / 40;
    say(
      `- 50-step run (a command changing 1–5 files per step)${tag}, ${pairs} turns: run time (run_end durationMs) median ${ms(m(50, "off"))} without snapshots, ${ms(m(50, name))} with: ${(m(50, name) / m(50, "off")).toFixed(3)} × (median of each turn's ratio ${turnRatio(times[50], name).toFixed(3)} ×); ` +
        `process wall time ${ms(median(walls.off))} / ${ms(median(walls[name]))}: ${(median(walls[name]) / median(walls.off)).toFixed(3)} × (per turn ${turnRatio(walls, name).toFixed(3)} ×). ` +
        `10-step runs ${ms(m(10, "off"))} / ${ms(m(10, name))}; so per step ${ms(perStep)} (the 50-step minus the 10-step difference over 40 steps) and per run ${ms(m(10, name) - m(10, "off") - 10 * perStep)} (the workspace walk of a new process)`,
    );
  }
}

// 2b. With --profile: the loop thread's time in 50-step runs, by bucket, per variant.
if (!REWIND_ONLY && process.argv.includes("--profile")) {
  plan = { steps: 50, command: stepCommand };
  const variants = [
    { name: "off", build: builds.at(-1), mode: "off" },
    ...builds.map((build) => ({ name: build.name, build, mode: "on" })),
  ];
  const run = (variant, env, turn) =>
    reson(runArgs(`profile ${turn}`), { RESON_SNAPSHOTS: variant.mode, ...env }, variant.build);
  const runs = arg("--profile-runs", 3);
  for (const line of await profileSplit(variants, run, join(base, "profiles"), runs)) say(line);
}

// 3. 1,000 files deleted, and put back: the floor (creating 1,000 files in a loop), the
// rewind in process (plan and restore, after the snapshot before and after), and `reson
// rewind` of a run that deleted them (a new process: start, walk, restore, record).
if (!RUNS_ONLY) {
  const scratch = join(base, "scratch");
  mkdirSync(scratch);
  let start = performance.now();
  for (let i = 0; i < 1000; i++) writeFileSync(join(scratch, `f${i}`), "x");
  say(`- the floor here: creating 1,000 small files in a plain loop takes ${ms(performance.now() - start)}`);

  // 50 folders of 20 files.
  const folders = [...new Set(paths.map((path) => path.split("/").slice(0, 2).join("/")))];
  const hashesOf = (victims) =>
    new Map(
      victims.map((path) => [
        path,
        createHash("sha256")
          .update(readFileSync(join(ws, path)))
          .digest("hex"),
      ]),
    );
  const check = (hashes) => {
    for (const [path, hash] of hashes) {
      if (
        createHash("sha256")
          .update(readFileSync(join(ws, path)))
          .digest("hex") !== hash
      )
        throw new Error(`${path} came back different`);
    }
  };
  const inFolders = (chosen) =>
    paths.filter((path) => chosen.includes(path.split("/").slice(0, 2).join("/")));

  // Each build in turn (order alternating), --pairs turns (one without --rewind-only): the
  // same 50 folders deleted and put back in process, then another 50 deleted by a run and
  // put back by `reson rewind`.
  const first = folders.slice(0, 50);
  const firstHashes = hashesOf(inFolders(first));
  const second = folders.slice(50, 100);
  const secondHashes = hashesOf(inFolders(second));
  if (secondHashes.size !== 1000) throw new Error(`${secondHashes.size} files chosen, not 1000`);
  const turns = REWIND_ONLY ? pairs : 1;
  const inProcess = new Map(builds.map((build) => [build.name, []]));
  const cli = new Map(builds.map((build) => [build.name, []]));
  let operations = 0;
  for (let turn = 0; turn < turns; turn++) {
    for (const build of turn % 2 ? [...builds].reverse() : builds) {
      const store = build.Store.open(build.home, ws);
      const before = await store.capture();
      for (const folder of first) rmSync(join(ws, folder), { recursive: true });
      const after = await store.capture();
      start = performance.now();
      const restore = build.planRestore(store.objects, after.tree, before.tree, undefined);
      build.applyOps(store.objects, ws, restore.ops);
      inProcess.get(build.name).push(performance.now() - start);
      operations = restore.ops.length;
      check(firstHashes);
      store.saveIndex();
      store.close();

      plan = { steps: 1, command: () => `rm -rf ${second.join(" ")}` };
      const { out } = await reson(runArgs("delete a thousand files"), { RESON_SNAPSHOTS: "on" }, build);
      const runId = runEnd(out).runId;
      if (second.some((folder) => existsSync(join(ws, folder))))
        throw new Error("the run did not delete the folders");
      const { wallMs } = await reson(["rewind", runId, "--yes"], PROFILE_ENV, build);
      cli.get(build.name).push(wallMs);
      check(secondHashes);
    }
  }
  const ratio = (series, name) =>
    BEFORE && name === "after"
      ? ` (${(median(series.get("after")) / median(series.get("before"))).toFixed(3)} × before)`
      : "";
  const all = (series, name) =>
    turns > 1
      ? ` [${series
          .get(name)
          .map((x) => x.toFixed(0))
          .join(", ")}]`
      : "";
  for (const build of builds) {
    const tag = BEFORE ? ` [${build.name}]` : "";
    say(
      `- rewind of a 1,000-file deletion in process (plan and restore, ${operations} operations, one syncfs)${tag}: ${turns > 1 ? "median " : ""}${ms(median(inProcess.get(build.name)))}${ratio(inProcess, build.name)}${all(inProcess, build.name)}`,
    );
  }
  for (const build of builds) {
    const tag = BEFORE ? ` [${build.name}]` : "";
    say(
      `- \`reson rewind\` of a run that deleted 1,000 files (50 folders)${tag}: ${turns > 1 ? "median " : ""}${ms(median(cli.get(build.name)))}${ratio(cli, build.name)}${all(cli, build.name)} wall, process start to exit (start-up, reading the workspace, restore, the record); every byte back`,
    );
  }
}

say(`- snapshot store after all this: ${mb(storeBytes())}`);
say(`- load at the end: ${readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ")}`);
server.close();
if (!process.argv.includes("--keep")) rmSync(base, { recursive: true, force: true });
const outAt = process.argv.indexOf("--out");
const file =
  outAt > 0
    ? resolve(process.argv[outAt + 1])
    : resolve(import.meta.dirname, `results/snapshot-${new Date().toISOString().slice(0, 10)}.md`);
writeFileSync(file, `${lines.join("\n")}\n`);
console.log(`\nwritten to ${file}`);
