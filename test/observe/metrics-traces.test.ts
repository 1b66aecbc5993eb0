// What an operator sees of `reson serve` from outside: Prometheus metrics scraped from
// /metrics (behind the token, and on a loopback --metrics-port without one) and OpenTelemetry
// spans received by an OTLP/HTTP collector, after a scripted run and a failing run; both are
// compared with the runs' own events and steps as the API serves them.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { traceIdOfRun } from "../../src/telemetry/index.js";
import { cleanEnv, runCli, type TempDir, tempDir } from "../support/cli.js";
import {
  type FakeModelServer,
  type RecordedRequest,
  startFakeModelServer,
} from "../support/fake-model-server.js";
import { type OtlpReceiver, type ReceivedSpan, startOtlpReceiver } from "../support/otlp-receiver.js";
import { parsePrometheusText, sumOf } from "../support/prometheus-text.js";
import { taskOf } from "../support/reply-by-task.js";
import { killAllReson, type ServiceProcess, startReson } from "../support/service-process.js";

interface Serve {
  process: ServiceProcess;
  url: string;
  metricsUrl: string;
  token: string;
  json<T>(method: string, path: string, body?: unknown): Promise<T>;
}

interface StoredEvent {
  seq: number;
  type: string;
  step: number;
  [key: string]: unknown;
}

/** "steps N": N commands, then an answer; "fail": the provider is down every time. */
function scripted(request: RecordedRequest) {
  const task = taskOf(request);
  if (task.startsWith("fail")) return { fault: "http" as const, status: 503 };
  if (task.startsWith("CHILD")) return { text: "child done", usage: { input: 50, output: 5 } };
  const messages = (request.body as { messages?: Array<{ role: string }> }).messages ?? [];
  const done = messages.filter((m) => m.role === "assistant").length;
  const steps = Number(/^steps (\d+)/.exec(task)?.[1] ?? 0);
  if (task.startsWith("delegate") && done === 0)
    return {
      toolCalls: [{ id: "call_sub", name: "subagent", arguments: { mode: "delegate", task: "CHILD look" } }],
    };
  if (done < steps)
    return {
      toolCalls: [
        { id: `call_${done}`, name: "execute_command", arguments: { command: `echo ${done} >> out.txt` } },
      ],
      usage: { input: 100 + done, output: 10 + done, cacheRead: 5 },
    };
  return { text: `finished: ${task}`, usage: { input: 300, output: 30 } };
}

async function startServe(home: string, cwd: string, env: Record<string, string>): Promise<Serve> {
  const process = startReson(
    ["serve", "--port", "0", "--metrics-port", "0", "--log-format", "json", "--workspace-root", cwd],
    {
      env: cleanEnv({ RESON_HOME: home, ...env }),
      cwd,
    },
  );
  const [line] = await process.waitFor(/\{[^\n]*"message":"listening on[^\n]*\}/);
  const started = JSON.parse(line) as { url: string; metrics: string; tracing: string };
  const token = readFileSync(join(home, "serve-token"), "utf8").trim();
  return {
    process,
    url: started.url,
    metricsUrl: started.metrics,
    token,
    async json<T>(method: string, path: string, body?: unknown): Promise<T> {
      const response = await fetch(`${started.url}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${token}`,
          ...(body === undefined ? {} : { "content-type": "application/json" }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      const text = await response.text();
      if (response.status >= 400) throw new Error(`${method} ${path}: ${response.status} ${text}`);
      return JSON.parse(text) as T;
    },
  };
}

async function finished(serve: Serve, id: string): Promise<{ status: string; sessionId: string }> {
  for (let i = 0; i < 300; i++) {
    const run = await serve.json<{ status: string; sessionId: string }>("GET", `/runs/${id}`);
    if (!["queued", "running"].includes(run.status)) return run;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`run ${id} did not finish`);
}

async function eventsOf(serve: Serve, id: string): Promise<StoredEvent[]> {
  const page = await serve.json<{ events: Array<{ data: StoredEvent }> }>(
    "GET",
    `/runs/${id}/events?format=json`,
  );
  return page.events.map((e) => e.data);
}

describe("metrics and traces of reson serve", () => {
  let model: FakeModelServer;
  let collector: OtlpReceiver;
  let ws: TempDir;
  let serve: Serve;
  const spec = () => ({
    workspace: ws.path,
    provider: "openai-compatible",
    baseUrl: model.openaiBaseUrl,
    model: "fake-model",
    sandbox: "off",
    allow: ["execute_command"],
  });

  beforeEach(async () => {
    model = await startFakeModelServer({ respond: scripted });
    collector = await startOtlpReceiver();
    ws = tempDir();
    serve = await startServe(ws.home, ws.path, {
      OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
      OTEL_EXPORTER_OTLP_HEADERS: "x-collector-key=observe-test",
      OTEL_SERVICE_NAME: "reson-under-test",
      RESON_RETRY_MAX_ATTEMPTS: "3",
      RESON_RETRY_BASE_DELAY_MS: "1",
      RESON_RETRY_MAX_DELAY_MS: "5",
      RESON_MEMORY: "false",
    });
  });
  afterEach(async () => {
    await killAllReson();
    await model.close();
    await collector.close();
    ws.remove();
  });

  it("counts a scripted run and a failing run in /metrics as their events tell", async () => {
    const ok = await serve.json<{ id: string }>("POST", "/runs", { task: "steps 2 then answer", ...spec() });
    expect((await finished(serve, ok.id)).status).toBe("completed");
    const bad = await serve.json<{ id: string }>("POST", "/runs", { task: "fail at once", ...spec() });
    expect((await finished(serve, bad.id)).status).toBe("failed");
    const events = [...(await eventsOf(serve, ok.id)), ...(await eventsOf(serve, bad.id))];
    const okEnd = (await eventsOf(serve, ok.id)).find((e) => e.type === "run_end")!;
    const badEnd = (await eventsOf(serve, bad.id)).find((e) => e.type === "run_end")!;
    const failCode = (badEnd.error as { code: string }).code;
    expect(failCode).toBe("provider_unavailable");

    // Behind the token on the API port; open on the loopback metrics port, which has nothing else.
    expect((await fetch(`${serve.url}/metrics`)).status).toBe(401);
    const viaApi = await fetch(`${serve.url}/metrics`, {
      headers: { authorization: `Bearer ${serve.token}` },
    });
    expect(viaApi.status).toBe(200);
    expect(viaApi.headers.get("content-type")).toContain("text/plain");
    expect(serve.metricsUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
    expect((await fetch(serve.metricsUrl.replace("/metrics", "/runs"))).status).toBe(404);
    const samples = parsePrometheusText(await (await fetch(serve.metricsUrl)).text());
    expect(parsePrometheusText(await viaApi.text()).map((s) => s.name)).toEqual(samples.map((s) => s.name));

    const labels = { provider: "openai-compatible", model: "fake-model" };
    expect(sumOf(samples, "reson_runs_total", { ...labels, status: "completed", code: "" })).toBe(1);
    expect(sumOf(samples, "reson_runs_total", { ...labels, status: "failed", code: failCode })).toBe(1);
    expect(sumOf(samples, "reson_runs_active")).toBe(0);
    const stepEnds = events.filter((e) => e.type === "step_end");
    expect(sumOf(samples, "reson_steps_total", labels)).toBe(stepEnds.length);
    expect(sumOf(samples, "reson_steps_total", { stop_reason: "toolUse" })).toBe(2);
    const toolResults = events.filter((e) => e.type === "tool_result");
    expect(toolResults).toHaveLength(2);
    expect(sumOf(samples, "reson_tool_calls_total", { tool: "execute_command", outcome: "ok" })).toBe(2);
    expect(sumOf(samples, "reson_tool_call_duration_seconds_count", { tool: "execute_command" })).toBe(2);
    const retries = events.filter((e) => e.type === "provider_retry");
    expect(retries.length).toBeGreaterThan(0);
    expect(sumOf(samples, "reson_provider_retries_total", { ...labels, code: failCode })).toBe(
      retries.length,
    );

    // The GenAI histograms: every token of every step, by type; one duration per model call,
    // the failed one labelled with its error.
    const usage = (type: "input" | "output" | "cacheRead") =>
      stepEnds.reduce((sum, e) => sum + (e.usage as Record<string, number>)[type]!, 0);
    const tokens = { operation: "chat", ...labels };
    expect(sumOf(samples, "gen_ai_client_token_usage_sum", { ...tokens, token_type: "input" })).toBe(
      usage("input"),
    );
    expect(sumOf(samples, "gen_ai_client_token_usage_sum", { ...tokens, token_type: "output" })).toBe(
      usage("output"),
    );
    expect(sumOf(samples, "gen_ai_client_token_usage_sum", { token_type: "cache_read" })).toBe(
      usage("cacheRead"),
    );
    expect(usage("input")).toBe((okEnd.usage as { input: number }).input);
    expect(sumOf(samples, "gen_ai_client_operation_duration_seconds_count", { ...tokens, code: "" })).toBe(
      stepEnds.length,
    );
    expect(sumOf(samples, "gen_ai_client_operation_duration_seconds_count", { code: failCode })).toBe(1);
    // The conventions' bucket boundaries.
    const durationBuckets = samples
      .filter((s) => s.name === "gen_ai_client_operation_duration_seconds_bucket" && s.labels.code === "")
      .map((s) => s.labels.le);
    expect(durationBuckets).toEqual([
      "0.01",
      "0.02",
      "0.04",
      "0.08",
      "0.16",
      "0.32",
      "0.64",
      "1.28",
      "2.56",
      "5.12",
      "10.24",
      "20.48",
      "40.96",
      "81.92",
      "+Inf",
    ]);
    expect(
      samples
        .filter((s) => s.name === "gen_ai_client_token_usage_bucket" && s.labels.token_type === "input")
        .at(-2)?.labels.le,
    ).toBe("67108864");

    // From the store, at the scrape: nothing waits; the local worker claimed two first attempts.
    expect(sumOf(samples, "reson_queue_depth", { state: "queued" })).toBe(0);
    expect(sumOf(samples, "reson_worker_claims_total", { kind: "first" })).toBe(2);
    expect(sumOf(samples, "reson_circuit_breaker_trips_total")).toBe(0);
    expect(sumOf(samples, "reson_budget_stops_total")).toBe(0);

    // Low cardinality: no label value is an id, a path or a task.
    for (const sample of samples)
      for (const value of Object.values(sample.labels)) {
        expect(value).not.toContain(ok.id);
        expect(value).not.toContain(ws.path);
        expect(value).not.toContain("then answer");
      }
  });

  it("exports each run as a span tree that matches its steps, with the run id as trace id", async () => {
    const ok = await serve.json<{ id: string; sessionId: string }>("POST", "/runs", {
      task: "steps 2 then answer",
      ...spec(),
    });
    await finished(serve, ok.id);
    const bad = await serve.json<{ id: string }>("POST", "/runs", { task: "fail at once", ...spec() });
    await finished(serve, bad.id);
    const okTrace = traceIdOfRun(ok.id);
    const badTrace = traceIdOfRun(bad.id);
    const rootOf = (traceId: string) => (spans: ReceivedSpan[]) =>
      spans.some((s) => s.traceId === traceId && s.parentSpanId === undefined);
    await collector.waitFor((spans) => rootOf(okTrace)(spans) && rootOf(badTrace)(spans));

    const okSpans = collector.spans.filter((s) => s.traceId === okTrace);
    const root = okSpans.find((s) => s.parentSpanId === undefined)!;
    expect(root.name).toBe("invoke_agent reson");
    expect(root.resource["service.name"]).toBe("reson-under-test");
    expect(root.attributes).toMatchObject({
      "gen_ai.operation.name": "invoke_agent",
      "gen_ai.agent.name": "reson",
      "gen_ai.agent.id": ok.id,
      "gen_ai.conversation.id": ok.sessionId,
      "gen_ai.provider.name": "openai",
      "gen_ai.request.model": "fake-model",
      "reson.run.status": "completed",
      "reson.run.steps": 3,
    });
    // Every other span is a child of the run, in the order of its steps and tool calls.
    const children = okSpans.filter((s) => s !== root).sort((a, b) => a.startMs - b.startMs);
    expect(children.every((s) => s.parentSpanId === root.spanId)).toBe(true);
    const events = await eventsOf(serve, ok.id);
    const expected = events
      .filter((e) => e.type === "step_start" || e.type === "tool_call")
      .map((e) => (e.type === "step_start" ? "chat fake-model" : `execute_tool ${String(e.name)}`));
    expect(children.map((s) => s.name)).toEqual(expected);
    const chats = children.filter((s) => s.name.startsWith("chat"));
    const stepEnds = events.filter((e) => e.type === "step_end");
    expect(chats.map((s) => s.attributes["gen_ai.usage.input_tokens"])).toEqual(
      stepEnds.map((e) => (e.usage as { input: number }).input),
    );
    expect(chats.map((s) => s.attributes["gen_ai.usage.output_tokens"])).toEqual(
      stepEnds.map((e) => (e.usage as { output: number }).output),
    );
    expect(chats.map((s) => s.attributes["gen_ai.response.finish_reasons"])).toEqual([
      ["tool_call"],
      ["tool_call"],
      ["stop"],
    ]);
    expect(chats[0]!.attributes).toMatchObject({
      "gen_ai.operation.name": "chat",
      "gen_ai.provider.name": "openai",
      "gen_ai.usage.cache_read.input_tokens": 5,
    });
    const tools = children.filter((s) => s.name.startsWith("execute_tool"));
    expect(tools.map((s) => s.attributes["gen_ai.tool.call.id"])).toEqual(
      events.filter((e) => e.type === "tool_result").map((e) => e.toolCallId),
    );
    expect(tools[0]!.attributes).toMatchObject({
      "gen_ai.tool.name": "execute_command",
      "gen_ai.tool.type": "function",
    });
    // Content is off by default: no task, answer, arguments or results on any span.
    for (const span of collector.spans)
      for (const key of Object.keys(span.attributes)) expect(key).not.toMatch(/messages|arguments|result/);
    expect(JSON.stringify(collector.spans)).not.toContain("then answer");
    // OTEL_EXPORTER_OTLP_HEADERS reached the collector.
    expect(collector.headers.every((h) => h["x-collector-key"] === "observe-test")).toBe(true);

    const badSpans = collector.spans.filter((s) => s.traceId === badTrace);
    const badRoot = badSpans.find((s) => s.parentSpanId === undefined)!;
    expect(badRoot.attributes["error.type"]).toBe("provider_unavailable");
    expect(badRoot.status.code).toBe(2);
    const failedChat = badSpans.find((s) => s.name === "chat fake-model")!;
    expect(failedChat.parentSpanId).toBe(badRoot.spanId);
    expect(failedChat.attributes["error.type"]).toBe("provider_unavailable");
  });

  it("nests a sub-agent's invoke_agent span under the subagent tool call that started it", async () => {
    const run = await serve.json<{ id: string }>("POST", "/runs", { task: "delegate a look", ...spec() });
    expect((await finished(serve, run.id)).status).toBe("completed");
    const traceId = traceIdOfRun(run.id);
    await collector.waitFor((spans) =>
      spans.some((s) => s.traceId === traceId && s.parentSpanId === undefined),
    );
    const spans = collector.spans.filter((s) => s.traceId === traceId);
    const root = spans.find((s) => s.parentSpanId === undefined)!;
    const tool = spans.find((s) => s.name === "execute_tool subagent")!;
    expect(tool.parentSpanId).toBe(root.spanId);
    const child = spans.find((s) => s.parentSpanId === tool.spanId)!;
    const started = (await eventsOf(serve, run.id)).find((e) => e.type === "sub_trace_started")!;
    expect(child.name).toBe(`invoke_agent ${String(started.preset)}`);
    expect(child.attributes).toMatchObject({
      "gen_ai.operation.name": "invoke_agent",
      "gen_ai.agent.id": started.childRunId,
      "reson.subagent.mode": "delegate",
      "reson.run.status": "completed",
      "gen_ai.usage.input_tokens": 50,
    });
    expect(child.startMs).toBeGreaterThanOrEqual(tool.startMs);
    expect(child.endMs).toBeLessThanOrEqual(tool.endMs);
  });

  it("logs one JSON object per line with the run's trace id, never the token or the task", async () => {
    const run = await serve.json<{ id: string; sessionId: string }>("POST", "/runs", {
      task: "steps 1 with a private plan",
      ...spec(),
    });
    await finished(serve, run.id);
    await serve.process.waitFor(/run ended completed/);
    const lines = serve.process
      .stderr()
      .split("\n")
      .filter((line) => line.startsWith("{"))
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines.length).toBeGreaterThan(3);
    for (const line of lines) expect(Object.keys(line).slice(0, 3)).toEqual(["time", "level", "message"]);
    const aboutRun = lines.filter((line) => line.runId === run.id);
    expect(aboutRun.map((line) => line.message)).toContain("run ended completed");
    for (const line of aboutRun) {
      expect(line.traceId).toBe(traceIdOfRun(run.id));
      expect(line.sessionId).toBe(run.sessionId);
      expect(line.workerId).toEqual(expect.any(String));
    }
    expect(serve.process.stderr()).not.toContain("private plan");
    expect(serve.process.stderr()).not.toContain(serve.token); // the log names the token file, never the token

    // `reson trace show` prints the trace id a collector knows the run by.
    await serve.process.kill();
    await serve.process.exited();
    const shown = await runCli(["trace", "show", run.id], { env: cleanEnv({ RESON_HOME: ws.home }) });
    expect(shown.stdout).toContain(`OpenTelemetry trace id ${traceIdOfRun(run.id)}`);
  });
});
