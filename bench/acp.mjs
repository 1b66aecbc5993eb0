// `reson acp` latency, against a zero-latency OpenAI-compatible server on loopback, each case in
// a fresh process and the cases taking turns (so load on the machine falls on all of them alike):
//   start  `reson acp` spawned → initialize answered, beside `reson --version` spawned → exited
//          (issue 30's target: ≤ --version + 50 ms); then session/new → answered, where the
//          rest of reson loads now.
//   turn   session/prompt sent → first session/update, and → first agent text, beside a
//          `reson run --json` step: run_start → run_end (issue 30's target: first update
//          ≤ 1.2 × it), and run_start → first text_delta.
// The first round is not counted (disk cache, compile cache, the remembered sandbox probe).
// --before <path to another checkout's bin/reson.js>: every case is run with it too, the two
// taking turns, and each column's ratios are to its own --version and run step.
// --thin-cache: the V8 code caches (src/cli/code-cache.ts) start empty in a folder of the
// bench's own, and each build's first `reson acp` is a short session (initialize, then the
// editor closes), as when a test or an editor's probe is the first to run after a build.
//   npm run build && node bench/acp.mjs [--reps 15] [--before /elsewhere/bin/reson.js] [--thin-cache]
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import { loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { performance } from "node:perf_hooks";

const flag = (name) =>
  process.argv.includes(name) ? process.argv[process.argv.indexOf(name) + 1] : undefined;
const reps = Number(flag("--reps")) || 15;
const CLIS = {
  ...(flag("--before") ? { before: resolve(flag("--before")) } : {}),
  after: resolve(import.meta.dirname, "../bin/reson.js"),
};

const server = createServer((req, res) => {
  req.resume();
  req.on("end", () => {
    const base = { id: "c1", object: "chat.completion.chunk", created: 0, model: "fake" };
    res.writeHead(200, { "content-type": "text/event-stream" });
    for (const chunk of [
      {
        ...base,
        choices: [{ index: 0, delta: { role: "assistant", content: "ready" }, finish_reason: null }],
      },
      { ...base, choices: [{ index: 0, delta: {}, finish_reason: "stop" }] },
      { ...base, choices: [], usage: { prompt_tokens: 10, completion_tokens: 1, total_tokens: 11 } },
    ])
      res.write(`data: ${JSON.stringify(chunk)}\n\n`);
    res.end("data: [DONE]\n\n");
  });
});
await new Promise((r) => server.listen(0, "127.0.0.1", r));
const baseUrl = `http://127.0.0.1:${server.address().port}/v1`;
const root = mkdtempSync(join(tmpdir(), "reson-acp-bench-"));
const home = join(root, "home");
const workspace = join(root, "work");
mkdirSync(home);
mkdirSync(workspace);
const env = {
  ...process.env,
  RESON_HOME: home,
  RESON_PROVIDER: "openai-compatible",
  RESON_BASE_URL: baseUrl,
  RESON_MODEL: "fake",
  RESON_MEMORY_REFLECT: "off",
  ...(process.argv.includes("--thin-cache") ? { XDG_CACHE_HOME: join(root, "cache") } : {}),
};

/**
 * Spawns `args`, calls `onSpawn(child)` at once, and `onLine(line, elapsedMs, child)` for each
 * stdout line; resolves at exit with the elapsed ms.
 */
function withLines(cli, args, onLine, onSpawn = () => {}) {
  return new Promise((resolvePromise, reject) => {
    const start = performance.now();
    const child = spawn(process.execPath, [cli, ...args], {
      env,
      cwd: workspace,
      stdio: ["pipe", "pipe", "pipe"],
    });
    onSpawn(child);
    let partial = "";
    let stderr = "";
    child.stderr.on("data", (d) => {
      stderr += d;
    });
    child.stdout.setEncoding("utf8").on("data", (chunk) => {
      const lines = (partial + chunk).split("\n");
      partial = lines.pop();
      for (const line of lines) if (line) onLine(line, performance.now() - start, child);
    });
    child.on("close", (code) => {
      if (code !== 0) reject(new Error(`reson ${args.join(" ")} exited ${code}: ${stderr}`));
      else resolvePromise(performance.now() - start);
    });
  });
}

const send = (child, message) => child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", ...message })}\n`);

async function version(cli) {
  return { version: await withLines(cli, ["--version"], () => {}) };
}

async function run(cli) {
  const out = {};
  let startAt;
  out.runWall = await withLines(cli, ["run", "--json", "say ready"], (line, at) => {
    const event = JSON.parse(line);
    if (event.type === "run_start") startAt = at;
    if (event.type === "text_delta" && startAt !== undefined) out.runFirstText ??= at - startAt;
    if (event.type === "run_end" && startAt !== undefined) out.runStep = at - startAt;
  });
  return out;
}

/** A `reson acp` an editor starts and closes at once: initialize, nothing more. */
async function shortAcp(cli) {
  await withLines(
    cli,
    ["acp"],
    (line, _at, child) => {
      if (JSON.parse(line).id === 0) child.stdin.end();
    },
    (child) =>
      send(child, {
        id: 0,
        method: "initialize",
        params: { protocolVersion: 1, clientCapabilities: {}, clientInfo: { name: "bench", version: "1" } },
      }),
  );
}

if (process.argv.includes("--thin-cache")) for (const cli of Object.values(CLIS)) await shortAcp(cli);
const cases = [version, acpRound, run];
const samples = Object.fromEntries(Object.keys(CLIS).map((name) => [name, {}]));
for (let round = 0; round <= reps; round++) {
  for (const measure of cases) {
    for (const [name, cli] of Object.entries(CLIS)) {
      const got = await measure(cli);
      if (round === 0) continue;
      for (const [key, value] of Object.entries(got)) {
        samples[name][key] ??= [];
        samples[name][key].push(value);
      }
    }
  }
}

/** A `reson acp` process as an editor drives it: initialize written at spawn, a session, one prompt. */
async function acpRound(cli) {
  const out = {};
  let promptAt;
  let newAt;
  const initialize = (child) =>
    send(child, {
      id: 0,
      method: "initialize",
      params: { protocolVersion: 1, clientCapabilities: {}, clientInfo: { name: "bench", version: "1" } },
    });
  await withLines(
    cli,
    ["acp"],
    (line, at, child) => {
      const message = JSON.parse(line);
      if (message.id === 0) {
        out.start = at;
        newAt = at;
        send(child, { id: 1, method: "session/new", params: { cwd: workspace, mcpServers: [] } });
      } else if (message.id === 1) {
        out.sessionNew = at - newAt;
        promptAt = at;
        send(child, {
          id: 2,
          method: "session/prompt",
          params: { sessionId: message.result.sessionId, prompt: [{ type: "text", text: "say ready" }] },
        });
      } else if (message.method === "session/update" && promptAt !== undefined) {
        const kind = message.params.update.sessionUpdate;
        // The session's commands are announced after session/new, not by the prompt.
        if (kind !== "available_commands_update") out.firstUpdate ??= at - promptAt;
        if (kind === "agent_message_chunk") out.firstText ??= at - promptAt;
      } else if (message.id === 2) {
        out.turn = at - promptAt;
        child.stdin.end();
      }
    },
    initialize,
  );
  return out;
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const names = Object.keys(CLIS);
const medians = Object.fromEntries(
  names.map((name) => [
    name,
    Object.fromEntries(Object.entries(samples[name]).map(([k, xs]) => [k, median(xs)])),
  ]),
);
const cell = (name, key) => {
  const xs = samples[name][key];
  return `${medians[name][key].toFixed(0)} (${Math.min(...xs).toFixed(0)}–${Math.max(...xs).toFixed(0)})`;
};
console.log(
  `Node ${process.version}, ${reps} rounds, fresh processes, load average ${loadavg()[0].toFixed(1)} at the end; wall ms, median (min–max)`,
);
console.log(`| measure | ${names.join(" | ")} |`);
console.log(`|---|${names.map(() => "---|").join("")}`);
const rows = [
  ["reson --version: spawn → exit", "version"],
  ["reson acp: spawn → initialize answered", "start"],
  ["reson acp: session/new → answered (after initialize)", "sessionNew"],
  ["reson acp: session/prompt → first session/update", "firstUpdate"],
  ["reson acp: session/prompt → first agent text", "firstText"],
  ["reson acp: session/prompt → answered", "turn"],
  ["reson run --json: run_start → first text_delta", "runFirstText"],
  ["reson run --json: run_start → run_end", "runStep"],
  ["reson run --json: spawn → exit", "runWall"],
];
for (const [label, key] of rows)
  console.log(`| ${label} | ${names.map((name) => cell(name, key)).join(" | ")} |`);
for (const name of names) {
  const m = medians[name];
  console.log(
    `\n${name}: start over --version: ${(m.start - m.version).toFixed(0)} ms (target ≤ 50); ` +
      `first update / run step: ${(m.firstUpdate / m.runStep).toFixed(2)} (target ≤ 1.2); ` +
      `first update / run's first text: ${(m.firstUpdate / m.runFirstText).toFixed(2)}; ` +
      `first text / run's first text: ${(m.firstText / m.runFirstText).toFixed(2)}`,
  );
}
server.close();
rmSync(root, { recursive: true, force: true });
