// A README scenario is a test named by the key of the block it runs (its first line of
// substance, readme-blocks.ts): `scenario("reson sessions", async (block) => …)`. The coverage
// test reads these calls from the scenario files, so keys are written out as string literals.
// What a scenario starts (a fake model, a user's folders, a shell) ends with its test.
import { createServer } from "node:net";
import { it, onTestFinished } from "vitest";
import { type CliOptions, type CliResult, runCli } from "../support/cli.js";
import {
  type FakeModelServer,
  type FakeModelServerOptions,
  startFakeModelServer,
} from "../support/fake-model-server.js";
import { BlockRun } from "./block-run.js";
import { blockByKey, type ReadmeBlock } from "./readme-blocks.js";
import { type ReadmeUser, readmeUser } from "./readme-user.js";

export function scenario(key: string, run: (block: ReadmeBlock) => Promise<void>, timeoutMs = 90_000): void {
  it(key, () => run(blockByKey(key)), timeoutMs);
}

/** A block whose scenario is not written yet: the coverage test lists it. */
scenario.todo = (key: string): void => {
  it.todo(key);
};

/** A fake model server for this test. */
export async function useModel(options: FakeModelServerOptions = {}): Promise<FakeModelServer> {
  const server = await startFakeModelServer(options);
  onTestFinished(() => server.close());
  return server;
}

/** A user's folders and environment for this test (see readme-user.ts). */
export function useUser(harness: Record<string, string> = {}): ReadmeUser {
  const user = readmeUser(harness);
  // A folder with a node_modules in it takes a while to remove on a busy machine.
  onTestFinished(() => user.remove(), 120_000);
  return user;
}

/** The block typed into a new shell of `user`; the shell and what it left running end with the test. */
export function useShell(block: ReadmeBlock, user: ReadmeUser): BlockRun {
  const run = BlockRun.open(block, user);
  onTestFinished(() => run.close());
  return run;
}

/** `reson …` as the user types it in their working folder (for blocks that are not commands). */
export function reson(user: ReadmeUser, args: string[], options: CliOptions = {}): Promise<CliResult> {
  return runCli(args, { cwd: user.work, env: user.env, timeoutMs: 60_000, ...options });
}

/** A loopback port nothing listens on now (for a server README starts on a fixed port). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer().once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}
