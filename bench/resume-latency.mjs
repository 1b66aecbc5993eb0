// Time from starting `reson resume <id>` to its first request to the model, for runs that
// stopped after 10 and after 100 committed steps (history of ~2 KB per step), on SQLite.
//   npm run build && node bench/resume-latency.mjs [--reps 7]
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { performance } from "node:perf_hooks";

const reps = Number(process.argv[process.argv.indexOf("--reps") + 1]) || 7;
const CLI = resolve(import.meta.dirname, "../bin/reson.js");

let failAt = Number.POSITIVE_INFINITY;
let requests = 0;
let firstRequestAt = 0;

function sse(res, chunks) {
  res.writeHead(200, { "content-type": "text/event-stream" });
  for (const chunk of chunks) res.write(`data: ${JSON.stringify(chunk)}\n\n`);
  res.end("data: [DONE]\n\n");
}

// Reads notes/<k>.txt until it has seen `steps` tool results, then answers; fails request
// number `failAt` with a 503 so the run stops with its earlier steps committed.
const server = createServer((req, res) => {
  const chunks = [];
  req.on("data", (c) => chunks.push(c));
  req.on("end", () => {
    requests++;
    if (requests === 1) firstRequestAt = performance.now();
    if (requests === failAt) {
      res.writeHead(503, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: { message: "bench: stop here" } }));
      return;
    }
    const body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
    const done = body.messages.filter((m) => m.role === "tool").length;
    const base = { id: "c", object: "chat.completion.chunk", created: 0, model: "fake" };
    const usage = {
      ...base,
      choices: [],
      usage: { prompt_tokens: 10, completion_tokens: 1, total_tokens: 11 },
    };
    if (done >= 200) {
      sse(res, [
        {
          ...base,
          choices: [{ index: 0, delta: { role: "assistant", content: "done" }, finish_reason: null }],
        },
        { ...base, choices: [{ index: 0, delta: {}, finish_reason: "stop" }] },
        usage,
      ]);
      return;
    }
    const call = {
      index: 0,
      id: `call_${done}`,
      type: "function",
      function: { name: "read_file", arguments: JSON.stringify({ path: `notes/${(done % 9) + 1}.txt` }) },
    };
    sse(res, [
      {
        ...base,
        choices: [{ index: 0, delta: { role: "assistant", tool_calls: [call] }, finish_reason: null }],
      },
      { ...base, choices: [{ index: 0, delta: {}, finish_reason: "tool_calls" }] },
      usage,
    ]);
  });
});
await new Promise((r) => server.listen(0, "127.0.0.1", r));
const baseUrl = `http://127.0.0.1:${server.address().port}/v1`;

function reson(args, cwd, env) {
  return new Promise((resolvePromise) => {
    const child = spawn(process.execPath, [CLI, ...args], { cwd, env, stdio: ["ignore", "pipe", "ignore"] });
    let out = "";
    child.stdout.on("data", (d) => {
      out += d;
    });
    child.on("close", (code) => resolvePromise({ code, out }));
  });
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

const rows = [];
for (const steps of [10, 100]) {
  const times = [];
  for (let i = 0; i < reps; i++) {
    const dir = mkdtempSync(join(tmpdir(), "reson-resume-bench-"));
    const home = join(dir, "home");
    const ws = join(dir, "ws");
    mkdirSync(join(ws, "notes"), { recursive: true });
    for (let k = 1; k <= 9; k++) writeFileSync(join(ws, "notes", `${k}.txt`), "x".repeat(2000));
    const env = { ...process.env, RESON_HOME: home, RESON_RETRY_MAX_ATTEMPTS: "1" };
    const model = ["--provider", "openai-compatible", "--base-url", baseUrl, "--model", "fake", "--json"];
    requests = 0;
    failAt = steps + 1;
    const first = await reson(["run", ...model, "--max-iterations", "500", "read the notes"], ws, env);
    const runId = JSON.parse(first.out.split("\n")[0]).runId;
    requests = 0;
    failAt = 2; // stop again right after the first request: we time only up to it
    const start = performance.now();
    const second = await reson(["resume", runId, ...model], ws, env);
    if (requests === 0)
      console.error("resume made no request:", second.out.split("\n").slice(-4).join("\n").slice(0, 3000));
    times.push(firstRequestAt - start);
    rmSync(dir, { recursive: true, force: true });
  }
  rows.push([steps, median(times), Math.min(...times), Math.max(...times)]);
}
server.close();
console.log(
  `Node ${process.version}, ${reps} runs each; ms from spawning \`reson resume\` to its first model request`,
);
console.log("| committed steps | median | min–max |");
console.log("|---|---|---|");
for (const [steps, med, min, max] of rows)
  console.log(`| ${steps} | ${med.toFixed(0)} | ${min.toFixed(0)}–${max.toFixed(0)} |`);
