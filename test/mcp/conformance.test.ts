// The official MCP conformance suite's client scenarios against reson's client (the built
// dist/, like the CLI tests), with a committed baseline of expected failures: a new failure
// fails this test, and so does a baseline entry that now passes.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { runWith } from "../support/cli.js";

const ROOT = resolve(import.meta.dirname, "../..");
const CONFORMANCE = join(ROOT, "node_modules/@modelcontextprotocol/conformance/dist/index.js");

describe("MCP conformance, client scenarios", () => {
  it("every scenario passes except those in the committed baseline, and none of those passes", async () => {
    const out = mkdtempSync(join(tmpdir(), "reson-conformance-"));
    try {
      const result = await runWith(
        process.execPath,
        [
          CONFORMANCE,
          "client",
          "--command",
          `${process.execPath} ${join(ROOT, "test/mcp/conformance/client.mjs")}`,
          "--suite",
          "all",
          "--expected-failures",
          join(ROOT, "test/mcp/conformance/expected-failures.yml"),
          "-o",
          out,
        ],
        { cwd: out, env: { ...process.env }, timeoutMs: 240_000 },
      );
      const summary = result.stdout.slice(result.stdout.indexOf("=== SUITE SUMMARY"));
      expect(summary).toContain("✓ initialize");
      expect(summary).toContain("✓ tools_call");
      expect(summary).toContain("✓ sse-retry");
      expect(result.code, summary).toBe(0);
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  }, 300_000);
});
