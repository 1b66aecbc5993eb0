// Plugins in a service run: `reson serve` loads the user's plugins for a run posted over HTTP,
// whose stored events say so right after run_start and whose model calls the plugin's tool.
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { oneCallThenAnswer, runServed, startServed, useServedFixture } from "../support/served-run.js";
import { addUserPlugins } from "../support/user-plugins.js";

const GREETER = resolve(import.meta.dirname, "../fixtures/plugins/greeter");

describe("plugins in reson serve", () => {
  const f = useServedFixture(oneCallThenAnswer({ name: "greet", arguments: { name: "Ann" } }, "Greeted."));

  it("loads the user's plugins for a run posted over HTTP and reports them in its events", async () => {
    await addUserPlugins(f.ws.home, [{ name: "greeter", root: GREETER }]);
    const served = await startServed(f.ws.home, f.ws.path);
    const { status, events } = await runServed(served, {
      task: "greet Ann",
      workspace: f.ws.path,
      provider: "openai-compatible",
      baseUrl: f.model.openaiBaseUrl,
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
