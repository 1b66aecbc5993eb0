// The interactive terminal (`reson` with no subcommand) as a child process driven through
// pipes: lines typed in, stdout and stderr read back as they arrive.
import { type ChildProcess, spawn } from "node:child_process";
import { afterEach, beforeEach } from "vitest";
import { CLI, cleanEnv, type TempDir, tempDir } from "./cli.js";
import { type FakeModelServer, startFakeModelServer } from "./fake-model-server.js";

export interface ReplSession {
  child: ChildProcess;
  /** stdout and stderr, interleaved as they arrived. */
  readonly output: string;
  send(line: string): void;
  /** Resolves when `text` appears in the output after `from` (default: anywhere). */
  waitFor(text: string | RegExp, from?: number): Promise<number>;
  exited: Promise<number | null>;
}

export function startRepl(args: string[], cwd: string, env: NodeJS.ProcessEnv): ReplSession {
  const child = spawn(process.execPath, [CLI, ...args], { cwd, env, stdio: ["pipe", "pipe", "pipe"] });
  let output = "";
  const waiters = new Set<() => void>();
  const onData = (chunk: string) => {
    output += chunk;
    for (const check of [...waiters]) check();
  };
  child.stdout!.setEncoding("utf8").on("data", onData);
  child.stderr!.setEncoding("utf8").on("data", onData);
  const exited = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
  return {
    child,
    get output() {
      return output;
    },
    send: (line) => child.stdin!.write(`${line}\n`),
    waitFor: (text, from = 0) =>
      new Promise((resolve, reject) => {
        const check = () => {
          const rest = output.slice(from);
          const at = typeof text === "string" ? rest.indexOf(text) : rest.search(text);
          if (at < 0) return;
          waiters.delete(check);
          clearTimeout(timer);
          resolve(from + at + 1);
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`timed out waiting for ${String(text)}; output:\n${output}`));
        }, 15_000);
        waiters.add(check);
        check();
      }),
    exited,
  };
}

export interface ReplFixture {
  server: FakeModelServer;
  /** The workspace the terminal starts in. */
  ws: TempDir;
  /** Its RESON_HOME. */
  home: TempDir;
  /** Starts `reson` (the terminal) in ws against the fake model; killed after the test. */
  open(): ReplSession;
}

/**
 * Call inside a describe block: a fake model, a workspace and a home per test, `setup` run on
 * them before the test, and whatever terminal the test opened killed after it.
 */
export function useReplFixture(
  setup: (fixture: ReplFixture) => void | Promise<void> = () => {},
): ReplFixture {
  let repl: ReplSession | undefined;
  const fixture = {
    open() {
      repl = startRepl(
        [
          "--provider",
          "openai-compatible",
          "--base-url",
          fixture.server.openaiBaseUrl,
          "--model",
          "fake-model",
        ],
        fixture.ws.path,
        cleanEnv({ RESON_HOME: fixture.home.path }),
      );
      return repl;
    },
  } as ReplFixture;
  beforeEach(async () => {
    fixture.server = await startFakeModelServer();
    fixture.ws = tempDir();
    fixture.home = tempDir();
    await setup(fixture);
  });
  afterEach(async () => {
    if (repl && repl.child.exitCode === null) repl.child.kill("SIGKILL");
    repl = undefined;
    await fixture.server.close();
    fixture.ws.remove();
    fixture.home.remove();
  });
  return fixture;
}
