// README "Development": the two commands are what CI runs (not run again from inside the test
// suite: `npm test` is this suite), and the sample of the skip block has the shape the skip
// reporter prints.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect } from "vitest";
import { REQUIREMENTS, type SkipRecord } from "../support/requirements.js";
import { renderSkipBlock } from "../support/skip-report.js";
import { shellStatements } from "./readme-blocks.js";
import { REPO } from "./readme-user.js";
import { scenario } from "./scenario.js";

describe("README: Development", () => {
  scenario("npm ci", async (block) => {
    const commands = shellStatements(block).map((s) => s.text.replace(/\s+#.*$/, ""));
    expect(commands).toEqual(["npm ci", "npm test"]);
    // .ci/run, what CI runs, installs with `npm ci` and tests with `npm test` (its reporters added).
    const ci = readFileSync(join(REPO, ".ci/run"), "utf8")
      .split("\n")
      .map((line) => line.trim());
    // Once for the suite, once for the smoke test on the newest LTS.
    const installs = ci.filter((line) => /^npm ci\b/.test(line));
    expect(installs.map((line) => line.replace(/\s*&&$/, ""))).toEqual([
      "npm ci --no-audit --no-fund",
      "npm ci --no-audit --no-fund",
    ]);
    expect(ci.filter((line) => /^npm test\b/.test(line))).toEqual([
      expect.stringMatching(/^npm test -- --reporter=/),
    ]);
    // `npm test` builds, then runs every test, as the block's comment says.
    const scripts = JSON.parse(readFileSync(join(REPO, "package.json"), "utf8")).scripts as Record<
      string,
      string
    >;
    expect(scripts.test).toBe("npm run build && vitest run");
  });

  scenario(
    "Skipped for missing dependencies (they run under CI=true, where a missing one fails):",
    async (block) => {
      const record = (file: string, group: string): SkipRecord => ({
        requirement: "sandbox",
        label: REQUIREMENTS.sandbox.label,
        install: REQUIREMENTS.sandbox.install,
        why: "bubblewrap is not installed",
        file,
        group,
      });
      const records = [
        record("test/durability/crash-resume.test.ts", "crash safety"),
        record("test/cli/permissions.test.ts", "commands"),
      ];
      const counts = new Map([
        ["test/durability/crash-resume.test.ts\0crash safety", 20],
        ["test/cli/permissions.test.ts\0commands", 54],
      ]);
      const rendered = renderSkipBlock(records, counts).replace(/^\n/, "");
      // README's lines as they are, `…` standing for more skipped files.
      const shape = block.body
        .split("\n")
        .map((line) =>
          line.trim() === "…" ? "(?:    - .*\\n)*" : `${line.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}\\n`,
        )
        .join("");
      expect(`${rendered}\n`).toMatch(new RegExp(`^${shape}$`));
    },
  );
});
