// Plugins in a service run: `reson serve` loads the user's plugins for a run posted over HTTP,
// whose stored events say so right after run_start and whose model calls the plugin's tool.
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { registryPath, writeRegistry } from "../../src/plugins/index.js";
import { cleanEnv, type TempDir, tempDir } from "../support/cli.js";
import {
  type FakeModelServer,
  type RecordedRequest,
  startFakeModelServer,
} from "../support/fake-model-server.js";
import { killAllReson, startReson } from "../support/service-process.js";

const GREETER = resolve(import.meta.dirname, "../fixtures/plugins/greeter");

/** Greets Ann once, then answers. */
function scripted(request: RecordedRequest) {
  const messages = (request.body as { messages?: { role: string }[] }).messages ?? [];
  if (!messages.some((m) => m.role === "assistant"))
    return { toolCalls: [{ id: "call_greet", name: "greet", arguments: { name: "Ann" } }] };
  return { text: "Greeted." };
}

describe("plugins in reson serve", () => {
  let model: FakeModelServer;
  let ws: TempDir;
  beforeEach(async () => {
    model = await startFakeModelServer({ respond: scripted });
    ws = tempDir();
  });
  afterEach(async () => {
    await killAllReson();
    await model.close();
    ws.remove();
  });

  it("loads the user's plugins for a run posted over HTTP and reports them in its events", async () => {
    await writeRegistry(registryPath("user", { home: ws.home, workspace: ws.path }), [
      { name: "greeter", root: GREETER, source: `path:${GREETER}`, enabled: true, addedAt: "" },
    ]);
    const serve = startReson(["serve", "--port", "0", "--log-format", "json", "--workspace-root", ws.path], {
      env: cleanEnv({ RESON_HOME: ws.home }),
      cwd: ws.path,
    });
    const [, url] = await serve.waitFor(/"url":"(http:\/\/127\.0\.0\.1:\d+)"/);
    const headers = {
      authorization: `Bearer ${readFileSync(join(ws.home, "serve-token"), "utf8").trim()}`,
      "content-type": "application/json",
    };
    const posted = await fetch(`${url}/runs`, {
      method: "POST",
      headers,
      body: JSON.stringify({
        task: "greet Ann",
        workspace: ws.path,
        provider: "openai-compatible",
        baseUrl: model.openaiBaseUrl,
        model: "fake-model",
        sandbox: "off",
      }),
    });
    expect(posted.status, await posted.clone().text()).toBe(202);
    const { id } = (await posted.json()) as { id: string };
    let status = "";
    for (let tries = 0; tries < 300 && !["completed", "failed"].includes(status); tries++) {
      await new Promise((r) => setTimeout(r, 100));
      status = ((await (await fetch(`${url}/runs/${id}`, { headers })).json()) as { status: string }).status;
    }
    expect(status).toBe("completed");
    const { events } = (await (await fetch(`${url}/runs/${id}/events?format=json`, { headers })).json()) as {
      events: { seq: number; type: string; data: Record<string, unknown> }[];
    };
    expect(events[0]?.type).toBe("run_start");
    expect(events[1]?.data).toMatchObject({
      type: "plugins_loaded",
      plugins: [{ name: "greeter", scope: "user", tools: ["greet", "read_note", "plugin_shell"] }],
    });
    expect(events.find((e) => e.type === "tool_result")?.data).toMatchObject({
      name: "greet",
      ok: true,
      content: "Hello, Ann!",
    });
  });
});
