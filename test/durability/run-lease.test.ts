// One run, one process: while a process runs a run it holds the run's lease, so a second
// `reson resume` (or `run --continue`) of it is refused at once, naming the holder, and calls
// nothing; a process that was stopped past its lease and lost the run to a `--force` resume
// commits nothing when it wakes, stops the command it was inside, and exits with the lease-lost
// error. The command of the run
// waits for a file the test writes, so "inside a slow command" is a state, not a timing.
import type { ChildProcess } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { openStore } from "../../src/store/index.js";
import { type CliResult, cleanEnv, parseEvents, runCli } from "../support/cli.js";
import { fakeModelArgs, useCliFixture } from "../support/cli-fixture.js";
import type { FakeReply, RecordedRequest } from "../support/fake-model-server.js";
import { startRepl } from "../support/repl-session.js";
import { skipWithout } from "../support/requirements.js";

const TASK = "count once";
const ANSWER = "Counted once.";
// Marks that it started, waits for the test's go-ahead, then leaves its side effect.
const COMMAND = "echo started >> started.txt; while [ ! -f go ]; do sleep 0.05; done; echo ran >> count.txt";

/** The model, stateless: the command first, then (after any result of it) the answer. */
function answer(request: RecordedRequest): FakeReply {
  const messages = (request.body as { messages?: Array<{ role: string }> }).messages ?? [];
  if (!messages.some((m) => m.role === "tool"))
    return { toolCalls: [{ id: "call_count", name: "execute_command", arguments: { command: COMMAND } }] };
  return { text: ANSWER };
}

function lines(path: string): string[] {
  return existsSync(path) ? readFileSync(path, "utf8").split("\n").filter(Boolean) : [];
}

async function until(what: string, done: () => boolean, child?: () => ChildProcess | undefined) {
  for (let i = 0; i < 600; i++) {
    if (done()) return;
    if (child?.()?.exitCode !== null && child?.()?.exitCode !== undefined)
      throw new Error(`the run exited before ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe.skipIf(await skipWithout("sandbox", "run leases"))("one process runs a run at a time", () => {
  const f = useCliFixture();
  const env = (extra: Record<string, string> = {}) => cleanEnv({ RESON_HOME: f.home.path, ...extra });
  const reson = (
    args: string[],
    options: { env?: NodeJS.ProcessEnv; onSpawn?: (child: ChildProcess) => void } = {},
  ): Promise<CliResult> =>
    runCli(args, { cwd: f.ws.path, env: options.env ?? env(), timeoutMs: 60_000, ...options });
  const model = () => ["--allow", "execute_command", ...fakeModelArgs(f.server)];
  const file = (name: string) => join(f.ws.path, name);

  /** Starts the run and waits until its command is running; the run goes on in the background. */
  async function startInsideCommand(runEnv = env()) {
    f.server.setResponder(answer);
    let child: ChildProcess | undefined;
    const first = reson(["run", "--json", ...model(), TASK], {
      env: runEnv,
      onSpawn: (spawned) => {
        child = spawned;
      },
    });
    await until(
      "the command to start",
      () => lines(file("started.txt")).length > 0,
      () => child,
    );
    const store = await openStore({ home: f.home.path });
    const session = (await store.sessions.list())[0]!;
    await store.close();
    return { first, child: child!, runId: session.lastTraceId!, sessionId: session.id };
  }

  it("a second resume while the first runs is refused at once, naming it; nothing runs twice", async () => {
    const { first, child, runId, sessionId } = await startInsideCommand();
    const requests = f.server.requests.length;

    const [resumed, forced, continued, another, sessions, shown] = await Promise.all([
      reson(["resume", runId.slice(0, 12), "--json", ...model()]),
      reson(["resume", runId, "--force", ...model()]),
      reson(["run", "--continue", ...model()]),
      reson(["run", "--continue", ...model(), "a second task for the same session"]),
      reson(["sessions"]),
      reson(["trace", "show", runId]),
    ]);
    expect(resumed.code).toBe(2);
    expect(resumed.stdout).toBe("");
    expect(resumed.stderr).toContain(`reson: Run ${runId} is held by reson run (pid ${child.pid} on `);
    expect(resumed.stderr).toMatch(/since \d\d:\d\d:\d\d \(\d+ s ago\)/);
    expect(resumed.stderr).toMatch(/hint: Wait for it to finish, or stop it \(kill \d+\)/);
    expect(forced.code).toBe(2);
    expect(forced.stderr).toContain("--force only takes over a lease that has expired");
    expect(continued.code).toBe(2);
    expect(continued.stderr).toContain(`Run ${runId} is held by reson run (pid ${child.pid}`);
    expect(another.code).toBe(2);
    expect(another.stderr).toContain(`Session ${sessionId} is busy: its run ${runId} is held by reson run`);
    expect(sessions.stdout).toContain(`running (reson run, pid ${child.pid})`);
    expect(shown.stdout).toContain(`held by reson run (pid ${child.pid} on `);
    // None of them called the model or ran anything.
    expect(f.server.requests.length).toBe(requests);
    expect(lines(file("started.txt"))).toEqual(["started"]);

    writeFileSync(file("go"), "");
    const done = await first;
    expect(done.stderr).not.toContain("reson:");
    expect(done.code).toBe(0);
    const events = parseEvents(done.stdout);
    expect(events.filter((e) => e.type === "run_end")).toEqual([
      expect.objectContaining({ status: "completed", finalText: ANSWER }),
    ]);
    expect(lines(file("count.txt"))).toEqual(["ran"]);
    expect(lines(file("started.txt"))).toEqual(["started"]);

    const store = await openStore({ home: f.home.path });
    try {
      expect(await store.traces.get(runId)).toMatchObject({ status: "completed", error: null });
      expect(await store.leases.get(runId)).toMatchObject({ epoch: 1, state: "released" });
    } finally {
      await store.close();
    }
    // And now that it is free, resume says there is nothing left to do.
    const after = await reson(["resume", runId, ...model()]);
    expect(after.code).toBe(0);
    expect(after.stderr).toContain("nothing to resume");
  }, 120_000);

  it("/resume in the terminal of a run a live process holds is refused, naming it", async () => {
    const { first, child, runId } = await startInsideCommand();
    const requests = f.server.requests.length;
    const repl = startRepl(fakeModelArgs(f.server), f.ws.path, env());
    try {
      await repl.waitFor("reson> ");
      repl.send(`/resume ${runId}`);
      await repl.waitFor(`reson: Run ${runId} is held by reson run (pid ${child.pid} on `);
      repl.send("/exit");
      await repl.exited;
    } finally {
      repl.child.kill();
      writeFileSync(file("go"), "");
    }
    expect(f.server.requests.length).toBe(requests);
    expect((await first).code).toBe(0);
    expect(lines(file("count.txt"))).toEqual(["ran"]);
  }, 120_000);

  it("a process stopped past its lease, taken over by --force, commits nothing when it wakes", async () => {
    // A short lease for the first process, so that it expires while the process is stopped.
    const { first, child, runId } = await startInsideCommand(env({ RESON_LEASE_TTL_MS: "1000" }));
    child.kill("SIGSTOP");
    let taken: CliResult | undefined;
    try {
      // A plain resume is refused while the lease is live, and still once it has expired,
      // since its holder is alive here: then it says so, and that --force takes it over.
      let refusal = "";
      for (let attempt = 0; attempt < 40 && !refusal.includes("still alive"); attempt++) {
        const tried = await reson(["resume", runId, "--json", ...model()]);
        expect(tried.code).toBe(2);
        refusal = tried.stderr;
        if (!refusal.includes("still alive")) await new Promise((r) => setTimeout(r, 250));
      }
      expect(refusal).toMatch(/Its lease expired \d+ s ago, but that process is still alive/);
      expect(refusal).toContain(`reson resume ${runId} --force`);
      taken = await reson(["resume", runId, "--force", "--json", ...model()]);
      expect(taken?.stderr).not.toContain("reson:");
      expect(taken?.code).toBe(0);
      const events = parseEvents(taken!.stdout);
      expect(events[0]).toMatchObject({ type: "run_start", runId, resumed: true });
      // The command the stopped process was inside is reported as interrupted, not run again.
      expect(events.find((e) => e.type === "tool_result")).toMatchObject({
        ok: false,
        error: expect.objectContaining({ code: "tool_interrupted" }),
      });
      expect(events.at(-1)).toMatchObject({ type: "run_end", status: "completed", finalText: ANSWER });
    } finally {
      // Whatever happened, the stopped process must not be left behind (nor left waiting).
      child.kill("SIGCONT");
      if (!taken) writeFileSync(file("go"), "");
    }

    const store = await openStore({ home: f.home.path });
    const snapshot = async () => ({
      trace: await store.traces.get(runId),
      steps: await store.steps.list(runId),
      turns: await store.turns.list((await store.traces.get(runId))!.sessionId),
      checkpoint: await store.checkpoints.get(runId),
      lease: await store.leases.get(runId),
    });
    try {
      const before = await snapshot();
      expect(before.trace).toMatchObject({ status: "completed" });
      expect(before.lease).toMatchObject({ epoch: 2, state: "released", holder: { role: "reson resume" } });

      const woke = await first;
      expect(woke.code).toBe(1);
      expect(woke.stderr).toContain(`reson: This process lost the lease of run ${runId} (epoch 1)`);
      expect(woke.stderr).not.toContain("continue it with");
      const end = parseEvents(woke.stdout).at(-1);
      expect(end).toMatchObject({ type: "run_end", status: "failed", error: { code: "lease_lost" } });
      expect(await snapshot()).toEqual(before);
    } finally {
      await store.close();
    }
    // The command the first process was inside stopped with it (it never got its go-ahead),
    // and the second did not start it again.
    writeFileSync(file("go"), "");
    expect(lines(file("started.txt"))).toEqual(["started"]);
    expect(lines(file("count.txt"))).toEqual([]);
  }, 120_000);
});
