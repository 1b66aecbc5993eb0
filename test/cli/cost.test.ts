// End to end: what a run costs, as the CLI tells it. A model with no known price (a local or
// OpenAI-compatible server) costs an unknown amount, never "$0"; a cost limit on such a model
// is refused before anything runs; a session that mixed priced and unpriced models says its
// cost is partly known.
import { describe, expect, it } from "vitest";
import { cleanEnv, parseEvents, runCli } from "../support/cli.js";
import { fakeModelArgs, useCliFixture } from "../support/cli-fixture.js";

describe("cost in the CLI", () => {
  const f = useCliFixture();
  const env = () => cleanEnv({ RESON_HOME: f.home.path, RESON_RETRY_MAX_ATTEMPTS: "1" });
  const cli = (args: string[]) => runCli(args, { cwd: f.ws.path, env: env() });
  /** OpenAI's own provider, pointed at the fake server: gpt-5.4 has a price in the registry. */
  const pricedModel = () => ["--provider", "openai", "--base-url", f.server.openaiBaseUrl, "--api-key", "k"];

  it("--max-cost with a model of unknown price is refused before any model call, pointing at --max-tokens", async () => {
    f.server.enqueue({ text: "never asked" });
    const result = await cli(["run", ...fakeModelArgs(f.server), "--max-cost", "0.50", "do something"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      "reson: A cost limit ($0.50) cannot be kept with openai-compatible/fake-model: reson does not know its price",
    );
    expect(result.stderr).toMatch(/hint: Limit tokens instead \(--max-tokens/);
    expect(f.server.requests.filter((r) => r.protocol !== "other")).toHaveLength(0);
  });

  it("the interactive terminal refuses --max-cost with a model of unknown price at start", async () => {
    const result = await runCli([...fakeModelArgs(f.server), "--max-cost", "1"], {
      cwd: f.ws.path,
      env: env(),
      input: "hello\n",
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("cannot be kept with openai-compatible/fake-model");
    expect(f.server.requests.filter((r) => r.protocol !== "other")).toHaveLength(0);
  });

  it("a run on a model of unknown price shows its cost as unknown, never $0: run, sessions and trace", async () => {
    f.server.enqueue({ text: "Answered." });
    const run = await cli(["run", ...fakeModelArgs(f.server), "answer"]);
    expect(run.code).toBe(0);
    expect(run.stderr).toMatch(/✓ done · 1 step · 19 tokens · cost unknown · /);
    expect(run.stderr).not.toContain("$0");

    const sessions = await cli(["sessions"]);
    expect(sessions.stdout).toMatch(/completed\s+\S+ ago\s+19\s+cost unknown\s+/);
    expect(sessions.stdout).not.toContain("$0");
    const json = JSON.parse((await cli(["sessions", "--json"])).stdout.split("\n")[0]!);
    expect(json.usage).toMatchObject({ totalTokens: 19, costUsd: 0, unpricedTokens: 19 });

    const id = json.lastTraceId as string;
    const trace = await cli(["trace", "show", id]);
    expect(trace.stdout).toContain("19 tokens · cost unknown");
  });

  it("a session that used a priced model and then one of unknown price says its cost is partly known", async () => {
    f.server.enqueue({ text: "Priced answer.", usage: { input: 1000, output: 100 } });
    const first = await cli(["run", "--json", ...pricedModel(), "first"]);
    expect(first.code).toBe(0);
    const end = parseEvents(first.stdout).at(-1)!;
    expect((end.usage as { costUsd: number }).costUsd).toBeGreaterThan(0);

    f.server.enqueue({ text: "Unpriced answer." });
    const second = await cli(["run", "--continue", ...fakeModelArgs(f.server), "second"]);
    expect(second.code).toBe(0);
    expect(second.stderr).toContain("cost unknown");

    const sessions = await cli(["sessions"]);
    expect(sessions.stdout).toMatch(/1,119\s+\$0\.\d+ \+ unknown\s+/);
  });
});
