// An error nothing awaited inside `reson serve` (here a plugin's timer that throws after its tool
// returned): the service writes one JSON log entry with the error, its stack and what happens
// to the runs it held, and exits with status 70, instead of Node's stack over many lines.
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { oneCallThenAnswer, startServed, useServedFixture } from "../support/served-run.js";
import { addUserPlugins } from "../support/user-plugins.js";

const STRAY = resolve(import.meta.dirname, "../fixtures/plugins/stray-throw");

describe("reson serve on an unexpected error", () => {
  const f = useServedFixture(oneCallThenAnswer({ name: "later", arguments: {} }, "Scheduled."));

  it("logs one JSON entry that says what happened and what comes next, and exits 70", async () => {
    await addUserPlugins(f.ws.home, [{ name: "stray-throw", root: STRAY }]);
    const served = await startServed(f.ws.home, f.ws.path);
    const posted = await fetch(`${served.url}/runs`, {
      method: "POST",
      headers: served.headers,
      body: JSON.stringify({
        task: "schedule it",
        workspace: f.ws.path,
        provider: "openai-compatible",
        baseUrl: f.model.openaiBaseUrl,
        model: "fake-model",
        sandbox: "off",
      }),
    });
    expect(posted.status).toBe(202);
    const exit = await served.process.exited();
    expect(exit.code).toBe(70);
    const lines = served.process
      .stderr()
      .split("\n")
      .filter((line) => line.trim() !== "");
    // Every line of the log is one JSON object, the last one the error.
    const entries = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(entries.at(-1)).toMatchObject({
      level: "error",
      origin: "uncaughtException",
      error: "Error",
      message: expect.stringContaining("reson serve stopped on an error nothing expected"),
      hint: expect.stringContaining("leases expire (30 s)"),
    });
    expect(String(entries.at(-1)!.message)).toContain("stray plugin bug: cache is not defined");
    expect(String(entries.at(-1)!.stack)).toContain("stray-throw/dev.reson/index.js");
  }, 60_000);
});
