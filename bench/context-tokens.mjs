// Total input tokens of a long run (200 steps, 20 KB tool outputs, ten goals of twenty
// steps) with reson's context management, against a naive loop that resends everything.
// The fake server counts 4 characters a token in what it receives; the naive total is the
// same run without trimming, compaction or goal summaries: every request carries every
// earlier message whole (computed from the measured size of one step's messages).
//   npm run build && node bench/context-tokens.mjs
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createAgent } from "../dist/index.js";

const WINDOW = 64_000;
const STEPS = 200;
const sizes = [];
let n = 0;

function sse(res, delta, finish, usage) {
  res.writeHead(200, { "content-type": "text/event-stream" });
  const base = { id: "c", object: "chat.completion.chunk", created: 0, model: "m" };
  res.write(
    `data: ${JSON.stringify({ ...base, choices: [{ index: 0, delta: { role: "assistant", ...delta }, finish_reason: null }] })}\n\n`,
  );
  res.write(
    `data: ${JSON.stringify({ ...base, choices: [{ index: 0, delta: {}, finish_reason: finish }] })}\n\n`,
  );
  res.write(`data: ${JSON.stringify({ ...base, choices: [], usage })}\n\n`);
  res.end("data: [DONE]\n\n");
}

const call = (id, name, args) => ({
  tool_calls: [{ index: 0, id, type: "function", function: { name, arguments: JSON.stringify(args) } }],
});

const server = createServer((req, res) => {
  const chunks = [];
  req.on("data", (c) => chunks.push(c));
  req.on("end", () => {
    const raw = Buffer.concat(chunks).toString("utf8");
    const tokens = Math.ceil(raw.length / 4);
    const usage = { prompt_tokens: tokens, completion_tokens: 30, total_tokens: tokens + 30 };
    if (raw.includes("compact the working memory")) {
      sse(res, { content: "## Goal\nRead all notes.\n## Progress\nBatches read so far." }, "stop", usage);
      return;
    }
    sizes.push(tokens);
    const step = n++;
    const goal = Math.floor(step / 20) + 1;
    const inGoal = step % 20;
    const id = `call_${step}`;
    if (step >= STEPS) return sse(res, { content: "FINISHED" }, "stop", usage);
    if (inGoal === 0)
      return sse(res, call(id, "goal", { action: "add", title: `batch ${goal}` }), "tool_calls", usage);
    if (inGoal === 19) {
      return sse(
        res,
        call(id, "goal", { action: "done", id: `g${goal}`, summary: `batch ${goal} read` }),
        "tool_calls",
        usage,
      );
    }
    sse(
      res,
      { content: `Reading note ${inGoal}.`, ...call(id, "read_file", { path: `notes/${inGoal}.txt` }) },
      "tool_calls",
      usage,
    );
  });
});
await new Promise((r) => server.listen(0, "127.0.0.1", r));

const dir = mkdtempSync(join(tmpdir(), "reson-context-bench-"));
mkdirSync(join(dir, "notes"));
for (let i = 1; i <= 18; i++)
  writeFileSync(
    join(dir, `notes/${i}.txt`),
    `note ${i} ${"lorem ipsum dolor sit amet ".repeat(2)}\n`.repeat(335),
  );
const agent = await createAgent({
  workspace: dir,
  provider: "openai-compatible",
  baseUrl: `http://127.0.0.1:${server.address().port}/v1`,
  model: "m",
  env: { ...process.env, RESON_HOME: join(dir, ".home") },
  persist: false,
  config: { contextWindow: WINDOW, maxIterations: STEPS + 10 },
});
const events = {};
const result = await agent.run("Read every note in batches, one goal per batch, then say FINISHED.", {
  onEvent: (e) => {
    events[e.type] = (events[e.type] ?? 0) + 1;
  },
});
server.close();
rmSync(dir, { recursive: true, force: true });

// A read step adds an assistant message and a 20 KB result: the growth between the 2nd and
// 3rd requests (both untrimmed) is one such step. Goal steps add a little; count them as reads.
const perStep = sizes[2] - sizes[1];
const naive = sizes.reduce((sum, _, k) => sum + sizes[0] + k * perStep, 0);
const reson = sizes.reduce((a, b) => a + b, 0);
console.log(
  `status ${result.status}, ${result.steps} model calls; trims ${events.context_trimmed ?? 0}, compactions ${events.context_compacted ?? 0}`,
);
console.log("| loop | total input tokens | largest request | ratio |");
console.log("|---|---|---|---|");
console.log(
  `| naive (resends everything) | ${naive.toLocaleString("en-US")} | ${(sizes[0] + (sizes.length - 1) * perStep).toLocaleString("en-US")} | 1.00 |`,
);
console.log(
  `| reson (budget ${Math.floor(WINDOW * 0.85).toLocaleString("en-US")} of a ${WINDOW.toLocaleString("en-US")} window) | ${reson.toLocaleString("en-US")} | ${Math.max(...sizes).toLocaleString("en-US")} | ${(reson / naive).toFixed(3)} |`,
);
