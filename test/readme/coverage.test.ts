// Every fenced block of README.md is run by a scenario of test/readme/, and every scenario runs
// a block README still has: a new block without a test fails here, naming it, and so does a
// scenario left behind by a block that changed its first line.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readmeBlocks } from "./readme-blocks.js";

const DIR = import.meta.dirname;

/** The keys of the scenario(…) calls (and scenario.todo(…)) of the scenario files. */
function scenarioKeys(): { key: string; todo: boolean; file: string }[] {
  const call = /\bscenario(\.todo)?\(\s*(["'`])((?:\\.|(?!\2)[^\\])*)\2/g;
  return readdirSync(DIR)
    .filter((file) => file.endsWith(".test.ts") && file !== "coverage.test.ts")
    .flatMap((file) =>
      [...readFileSync(join(DIR, file), "utf8").matchAll(call)].map((match) => ({
        key: unescapeString(match[3]!),
        todo: match[1] !== undefined,
        file,
      })),
    );
}

/** A JavaScript string literal's body as the string it means. */
function unescapeString(body: string): string {
  return body.replace(/\\(u\{[\da-f]+\}|u[\da-f]{4}|x[\da-f]{2}|.)/gi, (_all, escaped: string) => {
    const hex = /^[ux]\{?([\da-f]+)\}?$/i.exec(escaped)?.[1];
    if (hex && escaped.length > 1) return String.fromCodePoint(Number.parseInt(hex, 16));
    return { n: "\n", t: "\t" }[escaped] ?? escaped;
  });
}

describe("README's blocks and their scenarios", () => {
  const blocks = readmeBlocks();
  const scenarios = scenarioKeys();

  it("every block of README has a scenario that runs it", () => {
    const missing = blocks
      .filter((block) => !scenarios.some((s) => s.key === block.key && !s.todo))
      .map((block) => `line ${block.line} (${block.heading}): ${block.key}`);
    expect(missing, "README blocks without a finished scenario in test/readme/").toEqual([]);
  });

  it("every scenario runs a block README has, and no block has two", () => {
    const orphans = scenarios
      .filter((s) => !blocks.some((block) => block.key === s.key))
      .map((s) => `${s.file}: ${s.key}`);
    expect(orphans, "scenarios whose block README no longer has").toEqual([]);
    const twice = scenarios.filter((s, i) => scenarios.findIndex((o) => o.key === s.key) !== i);
    expect(twice.map((s) => `${s.file}: ${s.key}`)).toEqual([]);
  });

  it("blocks are told apart by their keys", () => {
    const keys = blocks.map((block) => block.key);
    expect(keys.filter((key, i) => key === "" || keys.indexOf(key) !== i)).toEqual([]);
  });
});
