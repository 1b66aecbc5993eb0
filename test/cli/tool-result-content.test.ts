// What a tool_result event says of a call that failed without output (denied by the permission
// gate, refused, interrupted): the same words the model is told, error and hint, so a client
// reading the events sees why, not an empty content.
import { describe, expect, it } from "vitest";
import { cleanEnv, parseEvents, runCli } from "../support/cli.js";
import { fakeModelArgs, useCliFixture } from "../support/cli-fixture.js";
import { toolMessagesOf } from "../support/waiting-command.js";

describe("tool_result events of calls that failed without output", () => {
  const f = useCliFixture();

  it("a denied call's event says why in its content, as the model was told", async () => {
    f.server.enqueue(
      { toolCalls: [{ name: "execute_command", arguments: { command: "touch made.txt" } }] },
      { text: "done" },
    );
    const result = await runCli(
      ["run", "--json", "--sandbox", "off", ...fakeModelArgs(f.server), "touch it"],
      {
        cwd: f.ws.path,
        env: cleanEnv({ RESON_HOME: f.home.path }),
      },
    );
    expect(result.code).toBe(0);
    const denied = parseEvents(result.stdout).find((event) => event.type === "tool_result");
    expect(denied).toMatchObject({ ok: false, error: { code: "tool_denied" } });
    const content = String(denied!.content);
    expect(content).toContain("tool_denied");
    expect(content).toContain("--allow 'execute_command(touch made.txt)'");
    // The model's message is this text (the run's notes on its goals may follow it).
    const told = toolMessagesOf(f.server.requests[1]!);
    expect(told).toHaveLength(1);
    expect(told[0]!.startsWith(content)).toBe(true);
  });
});
