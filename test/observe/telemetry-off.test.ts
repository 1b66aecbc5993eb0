// Tracing is off unless asked for, and then OpenTelemetry is not loaded at all: a module
// resolve hook in the reson process reports every OpenTelemetry or prom-client module it asks
// for. `reson run` loads neither; `reson serve` loads prom-client (its /metrics) but no
// OpenTelemetry until OTEL_EXPORTER_OTLP_ENDPOINT is set.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { cleanEnv, runCli, type TempDir, tempDir } from "../support/cli.js";
import { type FakeModelServer, startFakeModelServer } from "../support/fake-model-server.js";
import { killAllReson, startReson } from "../support/service-process.js";

describe("telemetry off by default", () => {
  let model: FakeModelServer;
  let ws: TempDir;
  let nodeOptions: string;
  let hookDir: string;

  beforeEach(async () => {
    model = await startFakeModelServer({ respond: () => ({ text: "ok" }) });
    ws = tempDir();
    hookDir = mkdtempSync(join(tmpdir(), "reson-resolve-hook-"));
    const hooks = join(hookDir, "hooks.mjs");
    writeFileSync(
      hooks,
      "export async function resolve(specifier, context, next) {\n" +
        "  if (/opentelemetry|prom-client/.test(specifier)) process.stderr.write('LOADED ' + specifier + '\\n');\n" +
        "  return next(specifier, context);\n}\n",
    );
    const register = join(hookDir, "register.mjs");
    writeFileSync(
      register,
      `import { register } from "node:module";\nregister(${JSON.stringify(pathToFileURL(hooks).href)});\nprocess.stderr.write("resolve hook active\\n");\n`,
    );
    nodeOptions = `--import=${pathToFileURL(register).href}`;
  });
  afterEach(async () => {
    await killAllReson();
    await model.close();
    ws.remove();
    rmSync(hookDir, { recursive: true, force: true });
  });

  const loaded = (stderr: string) => [...new Set(stderr.match(/LOADED \S+/g) ?? [])].sort();

  it("reson run loads neither OpenTelemetry nor prom-client", async () => {
    const result = await runCli(
      [
        "run",
        "--provider",
        "openai-compatible",
        "--base-url",
        model.openaiBaseUrl,
        "--model",
        "fake",
        "say ok",
      ],
      { cwd: ws.path, env: cleanEnv({ RESON_HOME: ws.home, NODE_OPTIONS: nodeOptions }) },
    );
    expect(result.code).toBe(0);
    expect(result.stderr).toContain("resolve hook active");
    expect(loaded(result.stderr)).toEqual([]);
  });

  it("reson serve loads OpenTelemetry only when an OTLP endpoint is set", async () => {
    const off = startReson(["serve", "--port", "0", "--log-format", "json"], {
      env: cleanEnv({ RESON_HOME: ws.home, NODE_OPTIONS: nodeOptions }),
      cwd: ws.path,
    });
    await off.waitFor(/"tracing":"off"/);
    // The hooks run on a thread of their own: their lines may come after the log's.
    await off.waitFor(/LOADED prom-client/);
    expect(loaded(off.stderr())).toEqual(["LOADED prom-client"]);
    off.kill();
    await off.exited();
    const on = startReson(["serve", "--port", "0", "--log-format", "json"], {
      env: cleanEnv({
        RESON_HOME: ws.home,
        NODE_OPTIONS: nodeOptions,
        OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:9",
      }),
      cwd: ws.path,
    });
    await on.waitFor(/"tracing":"otlp"/);
    await on.waitFor(/LOADED @opentelemetry\/sdk-trace-base/);
  });
});
