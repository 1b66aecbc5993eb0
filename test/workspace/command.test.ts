import { readFile } from "node:fs/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Workspace } from "../../src/workspace/index.js";
import { makeTempLayout, type TempLayout } from "./temp-dirs.js";

let layout: TempLayout;
let ws: Workspace;

beforeAll(async () => {
  layout = await makeTempLayout();
  ws = await Workspace.open(layout.root, { killGraceMs: 300 });
});

afterAll(async () => {
  await layout.cleanup();
});

/** True while the process exists and is not a zombie waiting to be reaped. */
async function isRunning(pid: number): Promise<boolean> {
  const stat = await readFile(`/proc/${pid}/stat`, "utf8").catch(() => undefined);
  if (stat === undefined) return false;
  return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
}

/** Waits (bounded) for a process to go away; the kill has been sent by then, reaping may lag. */
async function gone(pid: number): Promise<boolean> {
  for (let i = 0; i < 100; i += 1) {
    if (!(await isRunning(pid))) return true;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return false;
}

function firstPid(output: string): number {
  const match = /^(\d+)$/m.exec(output);
  if (!match) throw new Error(`no pid in ${JSON.stringify(output)}`);
  return Number(match[1]);
}

describe("running commands", () => {
  it("runs in the workspace root and returns the exit code as data", async () => {
    const result = await ws.runCommand("pwd; exit 3");
    expect(result.output).toBe(`${layout.root}\n`);
    expect(result).toMatchObject({
      exitCode: 3,
      signal: null,
      timedOut: false,
      aborted: false,
      truncated: false,
    });
  });

  it("merges stdout and stderr in the order they were written", async () => {
    const result = await ws.runCommand("echo one; echo two >&2; echo three; echo four >&2");
    expect(result.output).toBe("one\ntwo\nthree\nfour\n");
  });

  it("closes stdin, so a command reading it ends at once", async () => {
    const result = await ws.runCommand("cat; echo done");
    expect(result.output).toBe("done\n");
  });

  it("passes no secrets from the parent environment", async () => {
    const env = {
      ...process.env,
      SECRET_API_KEY: "sk-canary-1",
      GITHUB_TOKEN: "ghp-canary-2",
      RESON_DATABASE_URL: "postgres://canary-3",
      DB_PASSWORD: "canary-4",
      LC_SECRET_TOKEN: "canary-5",
      RANDOM_APP_SETTING: "canary-6",
      LANG: "C.UTF-8",
    };
    const scrubbed = await Workspace.open(layout.root, { env });
    const result = await scrubbed.runCommand("env");
    expect(result.output).not.toMatch(/canary/);
    expect(result.output).toContain("PATH=");
    expect(result.output).toContain("LANG=C.UTF-8");
  });

  it("does not inherit a secret set in process.env", async () => {
    process.env.SECRET_API_KEY = "sk-process-canary";
    try {
      const fresh = await Workspace.open(layout.root);
      const result = await fresh.runCommand('echo "[$SECRET_API_KEY]"');
      expect(result.output).toBe("[]\n");
    } finally {
      delete process.env.SECRET_API_KEY;
    }
  });

  it("on timeout stops the whole process group, background children included", async () => {
    const result = await ws.runCommand("sleep 30 & echo $!; wait", { timeoutMs: 300 });
    expect(result.timedOut).toBe(true);
    expect(result.exitCode).toBeNull();
    expect(await gone(firstPid(result.output))).toBe(true);
  });

  it("escalates to SIGKILL when the command ignores SIGTERM", async () => {
    const result = await ws.runCommand("trap '' TERM; sleep 30 & echo $!; wait; wait", { timeoutMs: 200 });
    expect(result.timedOut).toBe(true);
    expect(await gone(firstPid(result.output))).toBe(true);
  });

  it("on abort stops the whole process group and says so", async () => {
    const controller = new AbortController();
    const running = ws.runCommand("sleep 30 & echo $!; wait", { signal: controller.signal });
    setTimeout(() => controller.abort(), 200);
    const result = await running;
    expect(result.aborted).toBe(true);
    expect(result.timedOut).toBe(false);
    expect(await gone(firstPid(result.output))).toBe(true);
  });

  it("returns when the shell exits even if a background process keeps the output open", async () => {
    const result = await ws.runCommand("sleep 30 & echo $!");
    expect(result.exitCode).toBe(0);
    const pid = firstPid(result.output);
    expect(await isRunning(pid)).toBe(true);
    process.kill(pid, "SIGKILL");
  });

  it("caps the output, keeping its head and tail with a marker", async () => {
    const result = await ws.runCommand(
      "printf 'BEGIN'; head -c 100000 /dev/zero | tr '\\0' x; printf 'END'",
      {
        maxOutputBytes: 1000,
      },
    );
    expect(result.truncated).toBe(true);
    expect(result.outputBytes).toBe(100_008);
    expect(result.output.startsWith("BEGIN")).toBe(true);
    expect(result.output.endsWith("END")).toBe(true);
    expect(result.output).toContain("[... 99008 bytes of output omitted ...]");
  });

  it("cuts capped output at character boundaries", async () => {
    const result = await ws.runCommand("for i in $(seq 1 500); do printf 'é€'; done", {
      maxOutputBytes: 101,
    });
    expect(result.output).not.toContain("\uFFFD");
  });
});
