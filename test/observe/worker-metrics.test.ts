// `reson worker --metrics-port`: a worker that serves no API still offers Prometheus metrics,
// on loopback, of the runs it takes from the queue that `reson serve --workers 0` fills.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { cleanEnv, type TempDir, tempDir } from "../support/cli.js";
import { type FakeModelServer, startFakeModelServer } from "../support/fake-model-server.js";
import { parsePrometheusText, sumOf } from "../support/prometheus-text.js";
import { killAllReson, startReson } from "../support/service-process.js";

describe("reson worker --metrics-port", () => {
  let model: FakeModelServer;
  let ws: TempDir;

  beforeEach(async () => {
    model = await startFakeModelServer({
      respond: () => ({ text: "done", usage: { input: 40, output: 4 } }),
    });
    ws = tempDir();
  });
  afterEach(async () => {
    await killAllReson();
    await model.close();
    ws.remove();
  });

  it("serves the metrics of the runs the worker executed, and the queue's depth", async () => {
    const env = cleanEnv({ RESON_HOME: ws.home, RESON_MEMORY: "false" });
    const serve = startReson(
      ["serve", "--port", "0", "--workers", "0", "--log-format", "json", "--workspace-root", ws.path],
      {
        env,
        cwd: ws.path,
      },
    );
    const [, url] = await serve.waitFor(/"url":"(http:\/\/127\.0\.0\.1:\d+)"/);
    const token = readFileSync(join(ws.home, "serve-token"), "utf8").trim();
    const post = await fetch(`${url}/runs`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify({
        task: "answer",
        workspace: ws.path,
        provider: "openai-compatible",
        baseUrl: model.openaiBaseUrl,
        model: "fake-model",
        sandbox: "off",
      }),
    });
    const run = (await post.json()) as { id: string };

    const worker = startReson(["worker", "--metrics-port", "0", "--log-format", "json"], {
      env,
      cwd: ws.path,
    });
    const [, metricsUrl] = await worker.waitFor(/"metrics":"(http:\/\/127\.0\.0\.1:\d+\/metrics)"/);
    await worker.waitFor(new RegExp(`"message":"run ended completed"[^\\n]*"runId":"${run.id}"`));
    const samples = parsePrometheusText(await (await fetch(metricsUrl!)).text());
    const labels = { provider: "openai-compatible", model: "fake-model" };
    expect(sumOf(samples, "reson_runs_total", { ...labels, status: "completed" })).toBe(1);
    expect(sumOf(samples, "reson_steps_total", labels)).toBe(1);
    expect(sumOf(samples, "gen_ai_client_token_usage_sum", { ...labels, token_type: "input" })).toBe(40);
    expect(sumOf(samples, "reson_worker_claims_total", { kind: "first" })).toBe(1);
    expect(sumOf(samples, "reson_queue_depth", { state: "queued" })).toBe(0);
    expect(samples.some((s) => s.name.startsWith("reson_process_"))).toBe(true);
    // Only /metrics, only GET.
    expect((await fetch(metricsUrl!, { method: "POST" })).status).toBe(404);
  }, 60_000);
});
