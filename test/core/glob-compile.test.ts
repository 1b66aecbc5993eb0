import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { bracketEscapedBackslashes, compileGlob, globMatches } from "../../src/core/glob-compile.js";

// The built module, run in a child process that is killed if it spins: picomatch's defect is a
// loop that no test timeout can interrupt inside this process.
const MODULE = join(import.meta.dirname, "../../dist/core/glob-compile.js");

function inChild(script: string): { status: number | null; stdout: string; stderr: string } {
  const run = spawnSync(process.execPath, ["--input-type=module", "-e", script], {
    encoding: "utf8",
    timeout: 60_000,
  });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

describe("compiling globs", () => {
  it("a pattern ending in four backslashes compiles and matches the two backslashes it names", () => {
    // picomatch alone never returns on this pattern.
    expect(globMatches("a/\\\\", "a/\\\\\\\\", { dot: true })).toBe(true);
    expect(globMatches("a/\\", "a/\\\\\\\\", { dot: true })).toBe(false);
    expect(compileGlob(["**/x\\\\\\\\", "**/y"])("dir/x\\\\")).toBe(true);
  });

  it("an escaped backslash means one backslash; other escapes and bracket expressions are unchanged", () => {
    expect(bracketEscapedBackslashes("a\\\\b")).toBe("a[\\\\]b");
    expect(globMatches("a\\\\b", "a\\\\\\\\b")).toBe(true);
    expect(globMatches("a\\b", "a\\\\\\\\b")).toBe(false);
    expect(bracketEscapedBackslashes("a\\*b")).toBe("a\\*b");
    expect(globMatches("a*b", "a\\*b")).toBe(true);
    expect(globMatches("axb", "a\\*b")).toBe(false);
    expect(bracketEscapedBackslashes("[\\\\]x")).toBe("[\\\\]x");
    expect(bracketEscapedBackslashes("[]\\\\]\\\\")).toBe("[]\\\\][\\\\]");
    expect(bracketEscapedBackslashes("[!]]\\\\")).toBe("[!]][\\\\]");
    expect(globMatches("src/a.ts", "src/**/*.ts")).toBe(true);
  });

  it("compiles every pattern of up to five characters of glob syntax and backslashes without hanging", () => {
    const run = inChild(`
      import { compileGlob } from ${JSON.stringify(MODULE)};
      const alphabet = ["a", "/", "\\\\", "[", "]", "(", "*", "!"];
      let count = 0;
      const grow = (prefix) => {
        if (prefix.length > 0) {
          compileGlob(prefix, { dot: true })("a/b");
          compileGlob("**/" + prefix, { dot: true })("a/b");
          count++;
        }
        if (prefix.length < 5) for (const ch of alphabet) grow(prefix + ch);
      };
      grow("");
      // Longer ones seen to hang picomatch.
      for (const pattern of ["+\\\\+\\\\\\\\\\\\\\\\", "a/b/c/\\\\\\\\\\\\\\\\\\\\", "[ab\\\\\\\\\\\\\\\\", "**/*.{ts,js}\\\\\\\\\\\\\\\\"]) {
        compileGlob(pattern, { dot: true })("a/b");
        count++;
      }
      console.log(count);
    `);
    expect(run.stderr).toBe("");
    expect(run.status).toBe(0);
    expect(Number(run.stdout.trim())).toBe(8 + 8 ** 2 + 8 ** 3 + 8 ** 4 + 8 ** 5 + 4);
  });
});
