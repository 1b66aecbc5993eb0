// Cold start of the reson CLI: `reson --version`, `reson --help`, and a whole one-step
// `reson run` against a zero-latency OpenAI-compatible server on loopback, each in a fresh
// process, against bare `node -e 0` measured in the same run (the cases take turns, so load
// on the machine falls on all of them alike). Reports medians (and min–max) in ms and each
// median's ratio to node's. The first round is not counted: it fills the disk cache, Node's
// compile cache and reson's remembered sandbox probe, as a user's earlier runs would have.
//   npm run build && node bench/coldstart.mjs [--reps 15] [--cli path/to/reson.js]
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { performance } from "node:perf_hooks";

const reps = Number(process.argv[process.argv.indexOf("--reps") + 1]) || 15;
const cliAt = process.argv.indexOf("--cli");
const CLI = cliAt > 0 ? resolve(process.argv[cliAt + 1]) : resolve(import.meta.dirname, "../bin/reson.js");

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
const home = mkdtempSync(join(tmpdir(), "reson-coldstart-"));
// The workspace must be outside $RESON_HOME: reson refuses to work inside its own folder.
const workspace = mkdtempSync(join(tmpdir(), "reson-coldstart-ws-"));

function once(args) {
  return new Promise((resolvePromise, reject) => {
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
      else resolvePromise(performance.now() - start);
    });
  });
}

const cases = [
  ["node -e 0 (baseline)", ["-e", "0"]],
  ["reson --version", [CLI, "--version"]],
  ["reson --help", [CLI, "--help"]],
  [
    "reson run (one step)",
    [CLI, "run", "--provider", "openai-compatible", "--base-url", baseUrl, "--model", "fake", "say ready"],
  ],
];
const times = new Map(cases.map(([name]) => [name, []]));
for (const [, args] of cases) await once(args); // warm the disk cache
for (let i = 0; i < reps; i++) for (const [name, args] of cases) times.get(name).push(await once(args));

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
console.log("| command | median | min–max | over node | × node |");
console.log("|---|---|---|---|---|");
for (const [name] of cases) {
  const xs = times.get(name);
  const med = median(xs);
  console.log(
    `| ${name} | ${med.toFixed(0)} | ${Math.min(...xs).toFixed(0)}–${Math.max(...xs).toFixed(0)} | ${(med - base).toFixed(0)} | ${(med / base).toFixed(2)} |`,
  );
}
server.close();
rmSync(home, { recursive: true, force: true });
rmSync(workspace, { recursive: true, force: true });
