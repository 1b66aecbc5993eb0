// The goal tool through the registry, as the loop calls it: each action changes the run's
// tree and answers with what changed and the tree; what an action is missing is said plainly.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createBuiltinTools,
  GoalTree,
  historyText,
  ToolRegistry,
  type ToolResult,
} from "../../src/tools/index.js";
import { Workspace } from "../../src/workspace/index.js";
import { makeTempLayout, type TempLayout } from "../workspace/temp-dirs.js";

let layout: TempLayout;
let workspace: Workspace;
const registry = new ToolRegistry();
for (const tool of createBuiltinTools()) registry.register(tool);

beforeAll(async () => {
  layout = await makeTempLayout();
  workspace = await Workspace.open(layout.root);
});

afterAll(async () => {
  await layout.cleanup();
});

function goal(args: Record<string, unknown>, goals?: GoalTree): Promise<ToolResult> {
  const signal = new AbortController().signal;
  const ctx = { workspace, signal, runId: "run-1", toolCallId: "c1", ...(goals ? { goals } : {}) };
  return registry.execute({ id: "c1", name: "goal", arguments: args }, ctx);
}

describe("the goal tool", () => {
  it("is not read-only, so goal calls run in order, one at a time", () => {
    expect(registry.get("goal")?.readOnly).toBe(false);
  });

  it("add answers with what changed and the tree, shown once, then a one-line memory", async () => {
    const tree = new GoalTree();
    const first = await goal({ action: "add", title: "Fix the login bug" }, tree);
    expect(first.ok).toBe(true);
    expect(first.content).toBe(
      "Added g1 as a top-level goal. Focus is on g1.\n\nGoals:\n→ [ ] g1 Fix the login bug",
    );
    const second = await goal({ action: "add", title: "Write a failing test" }, tree);
    expect(second.content).toBe(
      [
        "Added g2 under g1. Focus is on g2.",
        "",
        "Goals:",
        "[ ] g1 Fix the login bug",
        "  → [ ] g2 Write a failing test",
      ].join("\n"),
    );
    expect(second.includeOutputOnlyOnce).toBe(true);
    expect(second.longTermMemory).toBe("goal add g2: Write a failing test");
    expect(historyText(second, { firstShow: false })).toBe("goal add g2: Write a failing test");
  });

  it("add takes a parent, or root for a top-level goal", async () => {
    const tree = new GoalTree();
    await goal({ action: "add", title: "Ship" }, tree);
    await goal({ action: "add", title: "Build" }, tree);
    const sibling = await goal({ action: "add", title: "Test", parent: "g1" }, tree);
    expect(sibling.content.split("\n")[0]).toBe("Added g3 under g1.");
    const root = await goal({ action: "add", title: "Chores", parent: "root" }, tree);
    expect(root.content.split("\n")[0]).toBe("Added g4 as a top-level goal.");
    expect(tree.focused()?.id).toBe("g2");
  });

  it("done and abandon act on the focused goal by default, or on the id given", async () => {
    const tree = new GoalTree();
    await goal({ action: "add", title: "Speed up CI" }, tree);
    await goal({ action: "add", title: "Cache dependencies" }, tree);
    const abandoned = await goal({ action: "abandon", reason: "the runner has no cache" }, tree);
    expect(abandoned.content.split("\n")[0]).toBe("g2 is abandoned. Focus is on g1.");
    expect(abandoned.longTermMemory).toBe("goal abandon g2: the runner has no cache");
    await goal({ action: "add", title: "Split the test job" }, tree);
    const done = await goal({ action: "done", id: "g1", summary: "CI takes 4 min instead of 11" }, tree);
    expect(done.content).toBe(
      [
        "g1 is done. g3 was still open: abandoned with g1. No goal is focused now.",
        "",
        "Goals:",
        "[x] g1 Speed up CI — CI takes 4 min instead of 11 (2 sub-goals)",
      ].join("\n"),
    );
  });

  it("focus switches to an open goal; focusing it again changes nothing", async () => {
    const tree = new GoalTree();
    await goal({ action: "add", title: "A" }, tree);
    await goal({ action: "add", title: "B", parent: "root" }, tree);
    expect((await goal({ action: "focus", id: "g2" }, tree)).content.split("\n")[0]).toBe("Focus is on g2.");
    expect((await goal({ action: "focus", id: "g2" }, tree)).content.split("\n")[0]).toBe(
      "Nothing changed; focus is on g2.",
    );
  });

  it.each([
    [{ action: "add" }, "goal add needs title.", '{"action": "add", "title": "…", "parent"?: "g1" | "root"}'],
    [{ action: "add", title: "  " }, "goal add needs title.", '"title"'],
    [
      { action: "done", id: "g1" },
      "goal done needs summary.",
      '{"action": "done", "summary": "…", "id"?: "g2"}',
    ],
    [
      { action: "abandon" },
      "goal abandon needs reason.",
      '{"action": "abandon", "reason": "…", "id"?: "g2"}',
    ],
    [{ action: "focus" }, "goal focus needs id.", '{"action": "focus", "id": "g2"}'],
  ])("says what %j is missing", async (args, message, hint) => {
    const tree = new GoalTree();
    tree.add("A");
    const result = await goal(args, tree);
    expect(result.ok).toBe(false);
    expect(result.error).toMatchObject({ code: "tool_invalid_arguments", message });
    expect(result.error?.hint).toContain(hint);
  });

  it("done without an id while nothing is focused asks for the id", async () => {
    const result = await goal({ action: "done", summary: "x" }, new GoalTree());
    expect(result.error).toMatchObject({
      code: "tool_invalid_arguments",
      message: "goal done needs id: no goal is focused.",
    });
  });

  it("an unknown action or argument is refused by the schema, listing the actions", async () => {
    const result = await goal({ action: "remove", id: "g1" }, new GoalTree());
    expect(result.error?.code).toBe("tool_invalid_arguments");
    expect(result.error?.message).toContain("- action:");
    expect(result.error?.hint).toContain('action: "add" | "done" | "abandon" | "focus"');
    const extra = await goal({ action: "add", title: "x", priority: 1 }, new GoalTree());
    expect(extra.error?.message).toContain("- priority: unknown argument");
  });

  it("unknown and closed goals come back as the tree's errors", async () => {
    const tree = new GoalTree();
    tree.add("A");
    tree.done("g1", "ok");
    expect((await goal({ action: "focus", id: "g5" }, tree)).error).toMatchObject({ code: "goal_not_found" });
    expect((await goal({ action: "abandon", id: "g1", reason: "x" }, tree)).error).toMatchObject({
      code: "goal_invalid",
      message: "Cannot abandon g1: it is already done.",
    });
  });

  it("says goals are not available when the run keeps none", async () => {
    const result = await goal({ action: "add", title: "A" });
    expect(result.error).toMatchObject({
      code: "tool_failed",
      message: "Goals are not available in this run.",
    });
  });
});
