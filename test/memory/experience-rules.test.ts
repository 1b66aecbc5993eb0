// The pure parts of learning from runs: ExpeL's operations parsed and sanitised, the Bayesian
// rate and Wilson ranking, retirement, and the section the model sees.
import { describe, expect, it } from "vitest";
import {
  bayesianSuccessRate,
  rankExperiences,
  shouldRetire,
  wilsonLowerBound,
} from "../../src/memory/experiences/ranking.js";
import { parseReflectionOps, sanitiseOps, voteDelta } from "../../src/memory/experiences/reflection-ops.js";
import { experiencesSection } from "../../src/memory/experiences/section.js";

describe("reflection operations", () => {
  const shown = [
    { condition: "running the tests", rule: "use npm run test:unit, not npm test" },
    { condition: "editing src/api", rule: "regenerate the client with make client" },
  ];

  it("parses ADD, AGREE, EDIT and REMOVE lines and ignores the rest", () => {
    const ops = parseReflectionOps(
      [
        "Here is my review:",
        "ADD: WHEN the build fails with ENOSPC THEN clear dist/ before building again.",
        "- agree 1: use npm run test:unit, not npm test",
        "EDIT 2: WHEN editing src/api THEN run make client and commit the generated files",
        "REMOVE 3: something",
        "ADD: too short",
        "NONE",
      ].join("\n"),
    );
    expect(ops).toEqual([
      {
        kind: "add",
        condition: "the build fails with ENOSPC",
        rule: "clear dist/ before building again.",
        keys: [],
      },
      { kind: "agree", index: 1 },
      {
        kind: "edit",
        index: 2,
        condition: "editing src/api",
        rule: "run make client and commit the generated files",
      },
      { kind: "remove", index: 3 },
    ]);
  });

  it("drops what cannot apply and turns an EDIT to the same text into an AGREE", () => {
    const ops = sanitiseOps(
      [
        { kind: "add", condition: "x", rule: "Use npm run test:unit, not npm test.", keys: [] },
        { kind: "add", condition: "y", rule: "always run the linter before committing", keys: [] },
        { kind: "add", condition: "y", rule: "Always run the linter before committing.", keys: [] },
        { kind: "edit", index: 1, rule: "use npm run test:unit,  not npm test" },
        { kind: "remove", index: 1 },
        { kind: "remove", index: 7 },
      ],
      shown,
    );
    expect(ops).toEqual([
      { kind: "add", condition: "y", rule: "always run the linter before committing", keys: [] },
      { kind: "agree", index: 1 },
    ]);
  });

  it("reads retrieval keys after KEYS:, in any language, and keeps an EDIT without them keyless", () => {
    const ops = parseReflectionOps(
      [
        "ADD: WHEN writes to the SQLite file fail under load THEN set busy_timeout and retry. KEYS: database is locked; SQLITE_BUSY | 数据库被锁; SQLITE_BUSY;  ",
        "EDIT 1: WHEN the tests run THEN use make test",
        "AGREE 2: use make test keys: npm ERR! missing script: test",
      ].join("\n"),
    );
    expect(ops).toEqual([
      {
        kind: "add",
        condition: "writes to the SQLite file fail under load",
        rule: "set busy_timeout and retry.",
        keys: ["database is locked", "SQLITE_BUSY", "数据库被锁"],
      },
      { kind: "edit", index: 1, condition: "the tests run", rule: "use make test" },
      { kind: "agree", index: 2, keys: ["npm ERR! missing script: test"] },
    ]);
  });

  it("weighs votes as ExpeL does", () => {
    expect(voteDelta({ kind: "add", rule: "r", condition: "c", keys: [] }, 3)).toBe(2);
    expect(voteDelta({ kind: "agree", index: 1 }, 3)).toBe(1);
    expect(voteDelta({ kind: "remove", index: 1 }, 3)).toBe(-1);
    expect(voteDelta({ kind: "remove", index: 1 }, 30)).toBe(-3);
  });
});

describe("ranking experiences", () => {
  it("starts a rule at one half and moves it with evidence", () => {
    expect(bayesianSuccessRate(0, 0)).toBe(0.5);
    expect(bayesianSuccessRate(3, 1)).toBeCloseTo(4 / 6);
    expect(wilsonLowerBound(9, 1)).toBeGreaterThan(wilsonLowerBound(1, 0));
    expect(wilsonLowerBound(0, 5)).toBeLessThan(0.2);
  });

  it("orders by match weighted by usefulness, and retires rules that keep failing", () => {
    const ranked = rankExperiences(
      [
        { id: "a", match: 0.9, successCount: 0, failureCount: 6 },
        { id: "b", match: 0.8, successCount: 8, failureCount: 1 },
        { id: "c", match: 0.01, successCount: 9, failureCount: 0 },
        { id: "d", match: 0.5, successCount: 0, failureCount: 0 },
      ],
      { limit: 2 },
    );
    expect(ranked.map((e) => e.id)).toEqual(["b", "d"]);
    expect(shouldRetire(0, 4)).toBe(true);
    expect(shouldRetire(0, 2)).toBe(false);
    expect(shouldRetire(3, 2)).toBe(false);
  });

  it("renders the section with each rule's record", () => {
    const text = experiencesSection([
      {
        id: "e1",
        condition: "running the tests",
        rule: "use npm run test:unit",
        usageCount: 4,
        successCount: 3,
        failureCount: 1,
      },
      {
        id: "e2",
        condition: "editing src/api",
        rule: "run make client",
        usageCount: 0,
        successCount: 0,
        failureCount: 0,
      },
    ]);
    expect(text).toContain(
      "- [e1] When running the tests: use npm run test:unit (helped 3 of 4 times, 67 %)",
    );
    expect(text).toContain("- [e2] When editing src/api: run make client (new)");
    expect(experiencesSection([])).toBe("");
  });
});
