// Cold start of the reson CLI: `reson --version`, `reson --help`, and a whole one-step
// `reson run` against a zero-latency OpenAI-compatible server on loopback, each in a fresh
// process, against bare `node -e 0` measured in the same run (the cases take turns, so load
// on the machine falls on all of them alike). Reports medians (and min–max) in ms and each
// median's ratio to node's, and the median of the ratios within each round ("paired"), which
// the machine's drifting speed disturbs less. The first round is not counted: it fills the disk
// cache, Node's compile cache and reson's remembered sandbox probe, as a user's earlier runs
// would have. `--before path/to/other/reson.js` measures another build's three commands in the
// same turns, so a change is compared before and after under the same load, and reports each
// command's change with a 95% interval.
//   npm run build && node bench/coldstart.mjs [--reps 15] [--cli path/to/reson.js] [--before path/to/reson.js]
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { performance } from "node:perf_hooks";

const reps = Number(process.argv[process.argv.indexOf("--reps") + 1]) || 15;
const cliAt = process.argv.indexOf("--cli");
const CLI = cliAt > 0 ? resolve(process.argv[cliAt + 1]) : resolve(import.meta.dirname, "../bin/reson.js");
const beforeAt = process.argv.indexOf("--before");
const BEFORE = beforeAt > 0 ? resolve(process.argv[beforeAt + 1]) : undefined;

function sse(res, chunks) {
  res.writeHead(200, { "content-type": "text/event-stream" });
  for (const chunk of chunks) res.write(`data: ${JSON.stringify(chunk)}\n\n`);
  res.end("data: [DONE]\n\n");
}

const server = createServer((req, res) => {
  req.resume();
  req.on("end", () => {
    const base = { id: "c1", object: "chat.completion.chunk", created: 0, model: "fake" };
    sse(res, [
      {
        ...base,
        choices: [{ index: 0, delta: { role: "assistant", content: "ready" }, finish_reason: null }],
      },
      { ...base, choices: [{ index: 0, delta: {}, finish_reason: "stop" }] },
      { ...base, choices: [], usage: { prompt_tokens: 10, completion_tokens: 1, total_tokens: 11 } },
    ]);
  });
});
await new Promise((r) => server.listen(0, "127.0.0.1", r));
const baseUrl = `http://127.0.0.1:${server.address().port}/v1`;
// RESON_HOME beside the workspace, not the workspace itself: reson refuses to work inside
// its own folder.
const root = mkdtempSync(join(tmpdir(), "reson-coldstart-"));
const home = join(root, "home");
const workspace = join(root, "work");
mkdirSync(home);
mkdirSync(workspace);

// CPU time (user + system) of the children, on Linux: the cutime and cstime of /proc/self/stat,
// counted in clock ticks (USER_HZ, 100 a second) over everything reaped so far. One child's
// share is rounded to 10 ms, so the table gives the mean over the runs. On a loaded machine
// the wall times swell with waiting for a core; the CPU times much less.
const PROC_STAT = "/proc/self/stat";
const hasProcStat = existsSync(PROC_STAT);
function childrenCpuMs() {
  if (!hasProcStat) return 0;
  const stat = readFileSync(PROC_STAT, "latin1");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" "); // fields[0] is field 3
  return (Number(fields[13]) + Number(fields[14])) * 10;
}

function once(args) {
  return new Promise((resolvePromise, reject) => {
    const cpuBefore = childrenCpuMs();
    const start = performance.now();
    const child = spawn(process.execPath, args, {
      stdio: ["ignore", "ignore", "pipe"],
      env: { ...process.env, RESON_HOME: home },
      cwd: workspace,
    });
    let stderr = "";
    child.stderr.on("data", (d) => {
      stderr += d;
    });
    child.on("close", (code) => {
      if (code !== 0) reject(new Error(`${args.join(" ")} exited ${code}: ${stderr}`));
      else resolvePromise({ wallMs: performance.now() - start, cpuMs: childrenCpuMs() - cpuBefore });
    });
  });
}

const commands = (cli, label) => [
  [`reson --version${label}`, [cli, "--version"]],
  [`reson --help${label}`, [cli, "--help"]],
  [
    `reson run (one step)${label}`,
    [cli, "run", "--provider", "openai-compatible", "--base-url", baseUrl, "--model", "fake", "say ready"],
  ],
];
const cases = [
  ["node -e 0 (baseline)", ["-e", "0"]],
  ...(BEFORE ? commands(BEFORE, " [before]") : []),
  ...commands(CLI, ""),
];
const times = new Map(cases.map(([name]) => [name, []]));
const cpu = new Map(cases.map(([name]) => [name, 0]));
for (const [, args] of cases) await once(args); // warm the disk cache
for (let i = 0; i < reps; i++) {
  for (const [name, args] of cases) {
    const { wallMs, cpuMs } = await once(args);
    times.get(name).push(wallMs);
    cpu.set(name, cpu.get(name) + cpuMs);
  }
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const base = median(times.get(cases[0][0]));
const [load1] = (await import("node:os")).loadavg();
console.log(
  `Node ${process.version}, ${reps} runs each, fresh processes, load average ${load1.toFixed(1)}; wall ms`,
);
const cpuBase = cpu.get(cases[0][0]) / reps;
const cpuHead = hasProcStat ? " CPU ms, mean | CPU × node |" : "";
console.log(`| command | median | min–max | over node | × node | × node, paired |${cpuHead}`);
console.log(`|---|---|---|---|---|---|${hasProcStat ? "---|---|" : ""}`);
const baseTimes = times.get(cases[0][0]);
for (const [name] of cases) {
  const xs = times.get(name);
  const med = median(xs);
  const cpuMean = cpu.get(name) / reps;
  const cpuCells = hasProcStat ? ` ${cpuMean.toFixed(0)} | ${(cpuMean / cpuBase).toFixed(2)} |` : "";
  // Each run over node's in the same round: the machine's speed drifts less within a round.
  const paired = median(xs.map((x, i) => x / baseTimes[i]));
  console.log(
    `| ${name} | ${med.toFixed(0)} | ${Math.min(...xs).toFixed(0)}–${Math.max(...xs).toFixed(0)} | ${(med - base).toFixed(0)} | ${(med / base).toFixed(2)} | ${paired.toFixed(2)} |${cpuCells}`,
  );
}

// With --before: each command's change, from the differences within a round (which cancel the
// machine's drift), as a median with a 95% bootstrap interval: an interval that excludes 0 is
// a change the noise does not explain.
if (BEFORE) {
  console.log("\n| command | after − before, median ms | 95% interval |");
  console.log("|---|---|---|");
  for (const [name] of commands(CLI, "")) {
    const after = times.get(name);
    const before = times.get(`${name} [before]`);
    const diffs = after.map((x, i) => x - before[i]);
    const boots = Array.from({ length: 2000 }, () =>
      median(diffs.map(() => diffs[Math.floor(Math.random() * diffs.length)])),
    ).sort((a, b) => a - b);
    console.log(
      `| ${name} | ${median(diffs).toFixed(1)} | ${boots[50].toFixed(1)} to ${boots[1949].toFixed(1)} |`,
    );
  }
}
server.close();
rmSync(root, { recursive: true, force: true });
