// reson as a row of the peer benchmark (../shared/bench/peers), measured in-process like the
// built-in adapters: the library's createAgent + run over the harness's fake model, with a
// BENCH_RESULT line. Usage, from a copy of the peers folder:
//   node run.mjs --adapter "reson-lib=node $PWD/bench/peer-adapter.mjs"
// The harness runs it in a folder holding notes/1.txt…; reson's own read_file tool reads them.
import { performance } from "node:perf_hooks";

const t0 = performance.now();
const steps = Number(process.env.BENCH_STEPS || 10);
const baseUrl = process.env.BENCH_BASE_URL || "http://127.0.0.1:8787/v1";
const model = process.env.BENCH_MODEL || "fake-model";
const apiKey = process.env.BENCH_API_KEY || "sk-fake-bench";
const prompt =
  process.env.BENCH_PROMPT ||
  `Read the files notes/1.txt to notes/${steps - 1}.txt one at a time with read_file, then reply with a one-line summary.`;

const round = (x) => Math.round(x * 100) / 100;

try {
  const importStart = performance.now();
  // The provider SDK is imported lazily by reson on first use; load it here, inside the
  // import window, as the other adapters load their frameworks.
  await import("@mariozechner/pi-ai");
  const { createAgent } = await import("../dist/index.js");
  const importEnd = performance.now();

  const cpuStart = process.cpuUsage();
  const loopStart = performance.now();
  const agent = await createAgent({
    workspace: process.cwd(),
    provider: "openai-compatible",
    baseUrl,
    model,
    apiKey,
    maxIterations: steps,
    // The harness counts model calls exactly: no reflection call after the run (memory itself,
    // recall before and remembering after, stays on as a user would have it).
    config: { memory: { reflect: "off" } },
  });
  const createdAt = performance.now();
  let toolCalls = 0;
  const result = await agent.run(prompt, {
    onEvent: (event) => {
      if (event.type === "tool_result" && event.name === "read_file" && event.ok) toolCalls++;
    },
  });
  const loopMs = performance.now() - loopStart;
  const cpu = process.cpuUsage(cpuStart);
  const ru = process.resourceUsage();
  const out = {
    mode: "stream",
    steps,
    toolCalls,
    finalOk:
      result.status === "completed" &&
      result.finalText.includes("FINAL_ANSWER_OK") &&
      toolCalls === steps - 1,
    importMs: round(importEnd - importStart),
    setupMs: round(loopStart - t0),
    loopMs: round(loopMs),
    loopCpuMs: round((cpu.user + cpu.system) / 1000),
    loopCpuUserMs: round(cpu.user / 1000),
    processCpuMs: round((ru.userCPUTime + ru.systemCPUTime) / 1000),
    maxRssMb: round(ru.maxRSS / 1024),
    heapUsedMb: round(process.memoryUsage().heapUsed / 1048576),
    finalText: result.finalText.slice(0, 200),
    // Inside loopMs: config, workspace, tools and the provider SDK's first load.
    createAgentMs: round(createdAt - loopStart),
  };
  process.stdout.write(`BENCH_RESULT ${JSON.stringify(out)}\n`);
  if (!out.finalOk) process.exitCode = 1;
} catch (error) {
  process.stdout.write(
    `BENCH_RESULT ${JSON.stringify({ error: String(error?.stack || error).slice(0, 2000) })}\n`,
  );
  process.exitCode = 1;
}
