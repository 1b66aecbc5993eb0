// `reson acp` driven by acpx, a headless ACP client nobody here wrote, as a user runs it:
// `acpx --agent 'reson acp' …`, against the fake model server.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { acpEnv } from "../support/acp-client.js";
import { CLI, runWith } from "../support/cli.js";
import { useCliFixture } from "../support/cli-fixture.js";

interface Update {
  sessionUpdate?: string;
  content?: { text?: string };
}

const ACPX = resolve(import.meta.dirname, "../../node_modules/.bin/acpx");

describe("reson acp under acpx", () => {
  const f = useCliFixture();

  function acpx(args: string[]) {
    // acpx keeps its own state under HOME: the test's home, not the developer's.
    const env = acpEnv(f, { HOME: f.home.path });
    return runWith(ACPX, ["--agent", `${process.execPath} ${CLI} acp`, "--cwd", f.ws.path, ...args], {
      env,
      cwd: f.ws.path,
      timeoutMs: 90_000,
    });
  }

  it("exec with --approve-all edits the file and shows the model's answer", async () => {
    writeFileSync(join(f.ws.path, "a.txt"), "one\ntwo\n");
    f.server.enqueue(
      {
        toolCalls: [
          { name: "edit_file", arguments: { path: "a.txt", old_string: "two", new_string: "three" } },
        ],
      },
      { text: "Changed two to three." },
    );
    const result = await acpx(["--approve-all", "exec", "change two to three in a.txt"]);
    expect(result.code, result.stderr).toBe(0);
    expect(readFileSync(join(f.ws.path, "a.txt"), "utf8")).toBe("one\nthree\n");
    expect(result.stdout).toContain("Changed two to three.");
  });

  it("exec with --deny-all: the write is refused and the file is not made", async () => {
    f.server.enqueue(
      { toolCalls: [{ name: "write_file", arguments: { path: "b.txt", content: "new\n" } }] },
      { text: "I was not allowed to write b.txt." },
    );
    const result = await acpx(["--deny-all", "exec", "write b.txt"]);
    expect(result.stdout).toContain("I was not allowed to write b.txt.");
    expect(existsSync(join(f.ws.path, "b.txt"))).toBe(false);
  });

  it("--format json: every line acpx prints is JSON, the protocol as acpx saw it, reson's streamed text in it", async () => {
    f.server.enqueue({ text: "Hello from reson." });
    const result = await acpx(["--format", "json", "--approve-all", "exec", "say hello"]);
    expect(result.code, result.stderr).toBe(0);
    const messages = result.stdout
      .split("\n")
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { result?: { stopReason?: string }; params?: { update?: Update } });
    const text = messages
      .map((message) => message.params?.update)
      .filter((update) => update?.sessionUpdate === "agent_message_chunk")
      .map((update) => update?.content?.text ?? "")
      .join("");
    expect(text).toBe("Hello from reson.");
    expect(messages.some((message) => message.result?.stopReason === "end_turn")).toBe(true);
  });
});
