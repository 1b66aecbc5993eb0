// The official MCP conformance suite's client scenarios against reson's client (the built
// dist/, like the CLI tests), one at a time, with a committed baseline of expected failures:
// a scenario outside the baseline must pass, and one in it must still fail (else the baseline
// is stale). sse-retry is left out here: it checks reconnection timing, which a loaded machine
// cannot keep (it passes run alone: see test/mcp/conformance/README.md).
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { runWith } from "../support/cli.js";

const ROOT = resolve(import.meta.dirname, "../..");
const CONFORMANCE = join(ROOT, "node_modules/@modelcontextprotocol/conformance/dist/index.js");
const CLIENT = join(ROOT, "test/mcp/conformance/client.mjs");
const TIMING_ONLY = ["sse-retry"];
const baseline = new Set<string>(
  (
    parse(readFileSync(join(ROOT, "test/mcp/conformance/expected-failures.yml"), "utf8")) as {
      client: string[];
    }
  ).client,
);
const out = mkdtempSync(join(tmpdir(), "reson-conformance-"));
afterAll(() => rmSync(out, { recursive: true, force: true }));

async function clientScenarios(): Promise<string[]> {
  const listed = await runWith(process.execPath, [CONFORMANCE, "list"], {
    cwd: out,
    env: { ...process.env },
  });
  const section = listed.stdout.slice(listed.stdout.indexOf("Client scenarios"));
  return [...section.matchAll(/^\s+- (\S+)/gm)]
    .map((m) => m[1] as string)
    .filter((s) => !TIMING_ONLY.includes(s));
}

describe("MCP conformance, client scenarios", async () => {
  const scenarios = await clientScenarios();
  it("lists the client scenarios", () => {
    expect(scenarios).toContain("initialize");
    expect(scenarios).toContain("auth/metadata-default");
  });
  for (const scenario of scenarios) {
    const expected = baseline.has(scenario) ? "fails (baseline)" : "passes";
    it(`${scenario} ${expected}`, async () => {
      const result = await runWith(
        process.execPath,
        [
          CONFORMANCE,
          "client",
          "--command",
          `${process.execPath} ${CLIENT}`,
          "--scenario",
          scenario,
          "-o",
          out,
        ],
        { cwd: out, env: { ...process.env }, timeoutMs: 60_000 },
      );
      const report = `${result.stdout}${result.stderr}`.slice(-1500);
      expect(result.code === 0, report).toBe(!baseline.has(scenario));
    }, 90_000);
  }
});
