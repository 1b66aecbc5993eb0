// The goal view: once a goal is closed, the model sees one summary message in place of the
// messages of its work; open goals' messages pass through as they are, a tool call never
// loses its results, an abandoned approach's reason stays, and the stored history never changes.
import { describe, expect, it } from "vitest";
import { applyGoalView, type HistoryEntry, renderHistory } from "../../src/context/index.js";
import type { AssistantMessage, ToolResultMessage } from "../../src/providers/index.js";
import { GoalTree } from "../../src/tools/index.js";

const USAGE = {
  input: 0,
  output: 0,
  cacheRead: 0,
  cacheWrite: 0,
  totalTokens: 0,
  cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
};

const task: HistoryEntry = {
  step: 0,
  message: { role: "user", content: "Fix the login bug", timestamp: 1_000 },
};

/** One loop step: the model calls `tools`, each result follows; all tagged with `goalId`. */
function step(n: number, goalId: string | undefined, tools: string[]): HistoryEntry[] {
  const ids = tools.map((_, i) => `s${n}-c${i}`);
  const assistant: AssistantMessage = {
    role: "assistant",
    content: [
      { type: "text", text: `step ${n}` },
      ...tools.map((name, i) => ({ type: "toolCall" as const, id: ids[i]!, name, arguments: {} })),
    ],
    api: "openai-completions",
    provider: "openai",
    model: "test",
    usage: USAGE,
    stopReason: "toolUse",
    timestamp: 1_000 + n,
  };
  const results = tools.map(
    (name, i): ToolResultMessage => ({
      role: "toolResult",
      toolCallId: ids[i]!,
      toolName: name,
      content: [{ type: "text", text: `result of ${name} in step ${n}` }],
      isError: false,
      timestamp: 1_000 + n,
    }),
  );
  const tag = goalId === undefined ? {} : { goalId };
  return [
    { step: n, message: assistant, ...tag },
    ...results.map((message): HistoryEntry => ({ step: n, message, ...tag })),
  ];
}

/** g1 Fix the login bug > g2 Reproduce (done), g3 Patch the regex (abandoned), g4 Rewrite (open). */
function scenario() {
  const tree = new GoalTree();
  tree.add("Fix the login bug");
  tree.add("Reproduce the failure");
  tree.done("g2", "test/login.test.ts fails on an empty password");
  tree.add("Patch the regex validator");
  tree.abandon("g3", "the regex rejects unicode emails");
  tree.add("Rewrite validation with a parser");
  const entries = [
    task,
    ...step(1, undefined, ["goal"]),
    ...step(2, "g2", ["read_file", "execute_command"]),
    ...step(3, "g2", ["goal"]),
    ...step(4, "g3", ["edit_file"]),
    ...step(5, "g3", ["execute_command", "goal"]),
    ...step(6, "g4", ["write_file"]),
  ];
  return { tree, entries };
}

const texts = (entries: readonly HistoryEntry[]) =>
  entries.map((e) =>
    typeof e.message.content === "string"
      ? e.message.content
      : e.message.content.map((b) => (b.type === "text" ? b.text : b.type)).join(" | "),
  );

describe("applyGoalView", () => {
  it("replaces the entries of each closed goal with one summary where they began", () => {
    const { tree, entries } = scenario();
    const view = applyGoalView(entries, tree);
    expect(texts(view)).toEqual([
      "Fix the login bug",
      "step 1 | toolCall",
      "result of goal in step 1",
      "[Goal g2 done] Reproduce the failure\nSummary: test/login.test.ts fails on an empty password",
      "[Goal g3 abandoned] Patch the regex validator\nReason: the regex rejects unicode emails",
      "step 6 | toolCall",
      "result of write_file in step 6",
    ]);
    expect(view[3]).toMatchObject({ step: 2, goalId: "g2", message: { role: "user", timestamp: 1_002 } });
    expect(view[4]).toMatchObject({ step: 4, goalId: "g3" });
  });

  it("passes the entries of open goals, untagged entries and unknown goals through as the same objects", () => {
    const { tree, entries } = scenario();
    const stranger = { ...step(7, "g99", ["grep"])[0]!, message: { ...entries[1]!.message } };
    const view = applyGoalView([...entries, stranger], tree);
    expect(view[0]).toBe(task);
    expect(view[1]).toBe(entries[1]);
    expect(view[2]).toBe(entries[2]);
    expect(view.slice(5, 7)).toEqual(entries.slice(-2));
    expect(view[5]).toBe(entries.at(-2));
    expect(view[6]).toBe(entries.at(-1));
    expect(view[7]).toBe(stranger);
  });

  it("gives the same summary objects on every call, also after the tree changes elsewhere", () => {
    const { tree, entries } = scenario();
    const first = applyGoalView(entries, tree);
    tree.add("Run the whole suite");
    const more = [...entries, ...step(7, "g5", ["execute_command"])];
    const second = applyGoalView(more, tree);
    expect(second[3]).toBe(first[3]);
    expect(second[4]).toBe(first[4]);
    expect(renderHistory(second, 8)[3]).toBe(renderHistory(first, 7)[3]);
  });

  it("closes a goal's sub-goals with it: their entries go into the one summary of the parent", () => {
    const tree = new GoalTree();
    tree.add("Upgrade the ORM");
    tree.add("Update the models");
    tree.add("Fix the enum columns");
    const entries = [
      task,
      ...step(1, "g1", ["read_file"]),
      ...step(2, "g2", ["edit_file"]),
      ...step(3, "g3", ["edit_file"]),
      ...step(4, "g2", ["execute_command"]),
    ];
    tree.done("g2", "models updated; enums need a cast");
    const view = applyGoalView(entries, tree);
    expect(texts(view)).toEqual([
      "Fix the login bug",
      "step 1 | toolCall",
      "result of read_file in step 1",
      "[Goal g2 done] Update the models\nSummary: models updated; enums need a cast",
    ]);
    tree.done("g1", "upgraded");
    expect(texts(applyGoalView(entries, tree))).toEqual([
      "Fix the login bug",
      "[Goal g1 done] Upgrade the ORM\nSummary: upgraded",
    ]);
  });

  it("keeps an abandoned approach's reason in view, also once its parent is closed", () => {
    const { tree, entries } = scenario();
    tree.done("g1", "login accepts unicode emails; tests pass");
    const view = applyGoalView(entries, tree);
    expect(texts(view)).toEqual([
      "Fix the login bug",
      "step 1 | toolCall",
      "result of goal in step 1",
      [
        "[Goal g1 done] Fix the login bug",
        "Summary: login accepts unicode emails; tests pass",
        "Abandoned on the way:",
        "- g3 Patch the regex validator: the regex rejects unicode emails",
      ].join("\n"),
    ]);
  });

  it("never separates a tool call from its results, whatever the results are tagged", () => {
    const tree = new GoalTree();
    tree.add("A");
    tree.add("B", null);
    tree.done("g2", "b is done");
    const [call, result] = step(1, "g2", ["grep"]);
    const [openCall, openResult] = step(2, "g1", ["grep"]);
    // Mis-tagged results: each must follow the assistant message that made the call.
    const entries = [task, call!, { ...result!, goalId: "g1" }, openCall!, { ...openResult!, goalId: "g2" }];
    const view = applyGoalView(entries, tree);
    expect(texts(view)).toEqual([
      "Fix the login bug",
      "[Goal g2 done] B\nSummary: b is done",
      "step 2 | toolCall",
      "result of grep in step 2",
    ]);
    for (const [i, entry] of view.entries()) {
      if (entry.message.role !== "toolResult") continue;
      const before = view[i - 1]?.message;
      expect(before?.role === "assistant" || before?.role === "toolResult").toBe(true);
    }
  });

  it("is a pure view: the stored entries and their array are left as they were", () => {
    const { tree, entries } = scenario();
    const copy = structuredClone(entries);
    const frozen = Object.freeze([...entries]);
    const view = applyGoalView(frozen, tree);
    expect(view).not.toBe(frozen);
    expect(entries).toEqual(copy);
    expect(applyGoalView(entries, new GoalTree())).toEqual(entries);
  });
});
