import { readFile } from "node:fs/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Harness, makeHarness } from "./harness.js";

let h: Harness;

beforeAll(async () => {
  h = await makeHarness({
    workspace: {
      killGraceMs: 300,
      env: { ...process.env, SECRET_API_KEY: "sk-canary-tool", MY_TOKEN: "t-canary" },
    },
  });
});

afterAll(async () => {
  await h.cleanup();
});

async function running(pid: number): Promise<boolean> {
  const stat = await readFile(`/proc/${pid}/stat`, "utf8").catch(() => undefined);
  return stat !== undefined && stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
}

describe("execute_command", () => {
  it("returns the output and exit code 0 as a success", async () => {
    const result = await h.call("execute_command", { command: "echo hello; echo oops >&2" });
    expect(result).toMatchObject({ ok: true, content: "hello\noops\n[exit code 0]" });
    expect(result.longTermMemory).toBe("ran `echo hello; echo oops >&2`: exit code 0");
  });

  it("makes a non-zero exit a failure that still shows the output", async () => {
    const result = await h.call("execute_command", { command: "echo partial; exit 2" });
    expect(result).toMatchObject({ ok: false, content: "partial\n[exit code 2]" });
    expect(result.error).toMatchObject({
      code: "command_failed",
      message: "The command exited with code 2.",
    });
  });

  it("says (no output) when there is none", async () => {
    expect((await h.call("execute_command", { command: "true" })).content).toBe("(no output)\n[exit code 0]");
  });

  it("hides API keys and tokens from the command", async () => {
    const result = await h.call("execute_command", { command: "env" });
    expect(result.content).not.toContain("canary");
    expect(result.content).toContain("PATH=");
  });

  it("stops a command at its timeout, with its children, as command_timeout", async () => {
    const result = await h.call("execute_command", {
      command: "sleep 30 & echo $!; wait",
      timeout_ms: "300",
    });
    expect(result.ok).toBe(false);
    expect(result.error?.code).toBe("command_timeout");
    expect(result.error?.hint).toContain("timeout_ms");
    expect(result.content).toContain("[timed out after 300 ms; stopped]");
    const pid = Number(result.content.split("\n")[0]);
    for (let i = 0; i < 100 && (await running(pid)); i += 1) await new Promise((r) => setTimeout(r, 20));
    expect(await running(pid)).toBe(false);
  });

  it("returns aborted when the run is cancelled", async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const result = await h.call("execute_command", { command: "sleep 30" }, controller.signal);
    expect(result).toMatchObject({ ok: false, error: { code: "aborted" } });
  });

  it("refuses a timeout above the maximum", async () => {
    const result = await h.call("execute_command", { command: "true", timeout_ms: 900_000 });
    expect(result.error?.code).toBe("tool_invalid_arguments");
    expect(result.error?.message).toContain("timeout_ms: must be <= 600000, received 900000");
  });

  it("keeps the start and the end of a long output", async () => {
    const result = await h.call("execute_command", { command: "seq 1 100000" });
    expect(result.ok).toBe(true);
    expect(result.meta.truncated).toBe(true);
    expect(result.content.startsWith("1\n2\n3\n")).toBe(true);
    expect(result.content.endsWith("99999\n100000\n[exit code 0]")).toBe(true);
    expect(result.content).toContain("[Output truncated:");
    expect(result.content.length).toBeLessThan(60_000);
  });
});
