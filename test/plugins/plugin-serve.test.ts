import { resolve } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { registryPath, writeRegistry } from "../../src/plugins/index.js";
import { type TempDir, tempDir } from "../support/cli.js";
import {
  type FakeModelServer,
  type RecordedRequest,
  startFakeModelServer,
} from "../support/fake-model-server.js";
import { runServed, startServed } from "../support/served-run.js";
import { killAllReson } from "../support/service-process.js";

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
    const served = await startServed(ws.home, ws.path);
    const { status, events } = await runServed(served, {
      task: "greet Ann",
      workspace: ws.path,
      provider: "openai-compatible",
      baseUrl: model.openaiBaseUrl,
      model: "fake-model",
      sandbox: "off",
    });
    expect(status).toBe("completed");
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
