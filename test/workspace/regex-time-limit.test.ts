// The built-in search engine against a pattern that backtracks without end: the search stops at
// its time limit with an error that says what to do, and the process stays free meanwhile.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ResonError } from "../../src/core/errors.js";
import { Workspace } from "../../src/workspace/index.js";

// `(a+)+$` on 40 "a"s and a "b" takes on the order of 2^40 steps in a backtracking engine. The
// look-behind makes ripgrep refuse it, so "auto" falls back to the JS scan too.
const EVIL = "(?<=x)(a+)+$";
const LINE = `x${"a".repeat(40)}b`;

let root: string;
let ws: Workspace;

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), "reson-regex-"));
  writeFileSync(join(root, "ok.txt"), "first\nx marks\nlast\n");
  writeFileSync(join(root, "trap.txt"), `${LINE}\n`);
  ws = await Workspace.open(root);
});

afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("the JS search engine's time limit", () => {
  it.each(["js", "auto"] as const)(
    "stops a runaway pattern with an error naming the file (engine %s)",
    async (engine) => {
      let ticks = 0;
      const ticker = setInterval(() => ticks++, 20);
      const error = await ws.search(EVIL, { engine, regexTimeLimitMs: 600 }).then(
        () => undefined,
        (caught: unknown) => caught,
      );
      clearInterval(ticker);
      expect(error).toBeInstanceOf(ResonError);
      expect((error as ResonError).code).toBe("tool_failed");
      expect((error as ResonError).message).toContain("took more than 0.6 s");
      expect((error as ResonError).message).toContain("ok.txt and 1 more files");
      expect((error as ResonError).hint).toMatch(/nested repetition/);
      // The loop's thread ran its timers while the pattern spun in the worker.
      expect(ticks).toBeGreaterThan(5);
    },
  );

  it("answers as before for patterns that finish, including look-behind, across batches", async () => {
    const found = await ws.search("(?<=x) marks", { engine: "js" });
    expect(found.matches).toEqual([{ path: "ok.txt", line: 2, text: "x marks" }]);
    expect(found.engine).toBe("js");
    const many = mkdtempSync(join(tmpdir(), "reson-regex-many-"));
    try {
      // 150 files of 2 matching lines: three batches; the cap is met in the second.
      for (let i = 0; i < 150; i++)
        writeFileSync(join(many, `f${String(i).padStart(3, "0")}.txt`), "hit\nmiss\nhit\n");
      const big = await Workspace.open(many);
      const all = await big.search("hit", { engine: "js" });
      expect(all.matches).toHaveLength(300);
      expect(all.truncated).toBe(false);
      expect(all.matches.at(-1)).toEqual({ path: "f149.txt", line: 3, text: "hit" });
      const capped = await big.search("hit", { engine: "js", maxMatches: 101 });
      expect(capped.matches).toHaveLength(101);
      expect(capped.truncated).toBe(true);
      expect(capped.matches.at(-1)).toEqual({ path: "f050.txt", line: 1, text: "hit" });
    } finally {
      rmSync(many, { recursive: true, force: true });
    }
  });

  it("stops at once when the search is cancelled", async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const error = await ws.search(EVIL, { engine: "js", signal: controller.signal }).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect((error as ResonError).code).toBe("aborted");
  });
});
