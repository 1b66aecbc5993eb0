// A configuration error reaches the user through the command (the bundle checks configurations
// with code generated at build time, and describes what is wrong with TypeBox, loaded then).
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { cleanEnv, runCli } from "../support/cli.js";
import { fakeModelArgs, useCliFixture } from "../support/cli-fixture.js";

describe("reson run with a broken configuration", () => {
  const f = useCliFixture();
  const run = (env: Record<string, string> = {}) =>
    runCli(["run", ...fakeModelArgs(f.server), "say ready"], {
      cwd: f.ws.path,
      env: cleanEnv({ RESON_HOME: f.home.path, ...env }),
    });

  it("names the file and the field, and runs nothing", async () => {
    writeFileSync(
      join(f.home.path, "config.json"),
      JSON.stringify({ maxIterations: 0, retry: { maxAttempts: 2, tries: 3 } }),
    );
    const result = await run();
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`Invalid configuration in ${join(f.home.path, "config.json")}`);
    expect(result.stderr).toMatch(/maxIterations: .*>= 1/);
    expect(result.stderr).toMatch(/retry: .*tries/);
    expect(f.server.requests).toHaveLength(0);
  });

  it("names a bad environment variable's value", async () => {
    const result = await run({ RESON_MAX_ITERATIONS: "-4" });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/Invalid configuration in environment: maxIterations/);
    expect(f.server.requests).toHaveLength(0);
  });

  it("runs with a valid one", async () => {
    writeFileSync(
      join(f.home.path, "config.json"),
      JSON.stringify({ maxIterations: 3, memory: { holdout: 0 } }),
    );
    f.server.enqueue({ text: "ready" });
    const result = await run();
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("ready");
  });
});
