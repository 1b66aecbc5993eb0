// The goal tree is the model's plan: short sequential ids, one focused goal, closing with a
// summary or a reason, sub-goals closed with their parent, a compact bounded rendering and a
// JSON form that survives a checkpoint.
import { describe, expect, it } from "vitest";
import { ResonError } from "../../src/core/errors.js";
import { type GoalChange, GoalTree } from "../../src/tools/index.js";

function thrown(work: () => unknown): ResonError {
  try {
    work();
  } catch (error) {
    expect(error).toBeInstanceOf(ResonError);
    return error as ResonError;
  }
  throw new Error("expected a throw");
}

/** The login-bug plan used by several tests; `step` is what the tree stamps. */
function loginPlan() {
  let step = 1;
  const tree = new GoalTree({ currentStep: () => step });
  tree.add("Fix the login bug");
  tree.add("Reproduce the failure");
  step = 3;
  tree.done("g2", "test fails on an empty password");
  tree.add("Patch the regex validator");
  step = 5;
  tree.abandon("g3", "breaks unicode emails");
  tree.add("Rewrite validation with a parser");
  tree.add("Add tests for unicode emails", "g1");
  return { tree, setStep: (n: number) => (step = n) };
}

describe("GoalTree operations", () => {
  it("numbers goals g1, g2, … and focuses a goal added under the focused one", () => {
    const tree = new GoalTree({ currentStep: () => 4 });
    const first = tree.add("Fix the login bug");
    expect(first).toEqual<GoalChange[]>([
      {
        type: "goal_added",
        goal: { id: "g1", parentId: null, title: "Fix the login bug", status: "open", createdStep: 4 },
      },
      { type: "goal_focused", goalId: "g1", previousId: null },
    ]);
    const second = tree.add("  Reproduce the failure  ");
    expect(second.map((c) => c.type)).toEqual(["goal_added", "goal_focused"]);
    expect(tree.get("g2")).toMatchObject({ parentId: "g1", title: "Reproduce the failure" });
    expect(tree.focused()?.id).toBe("g2");
  });

  it("a goal added elsewhere (a plan's later step, or a root) leaves the focus where it is", () => {
    const tree = new GoalTree();
    tree.add("Ship the feature");
    tree.add("Design");
    expect(tree.add("Build", "g1")).toEqual([expect.objectContaining({ type: "goal_added" })]);
    tree.add("Unrelated chore", null);
    expect(tree.focused()?.id).toBe("g2");
    expect(tree.get("g3")?.parentId).toBe("g1");
    expect(tree.get("g4")?.parentId).toBeNull();
  });

  it("done needs a summary, abandon a reason; both stamp the step and move the focus on", () => {
    let step = 1;
    const tree = new GoalTree({ currentStep: () => step });
    tree.add("Fix the build");
    tree.add("Find the failing test");
    tree.add("Fix it", "g1");
    step = 7;
    expect(tree.done("g2", "  it is test/a.test.ts  ")).toEqual<GoalChange[]>([
      {
        type: "goal_closed",
        goal: {
          id: "g2",
          parentId: "g1",
          title: "Find the failing test",
          status: "done",
          summary: "it is test/a.test.ts",
          createdStep: 1,
          closedStep: 7,
        },
      },
      // The next open sibling takes the focus, else the parent.
      { type: "goal_focused", goalId: "g3", previousId: "g2" },
    ]);
    expect(tree.abandon("g3", "the test is flaky upstream").at(-1)).toEqual({
      type: "goal_focused",
      goalId: "g1",
      previousId: "g3",
    });
    expect(tree.get("g3")).toMatchObject({ status: "abandoned", reason: "the test is flaky upstream" });
    expect(thrown(() => tree.done("g1", "   ")).code).toBe("goal_invalid");
    expect(thrown(() => tree.abandon("g1", "")).message).toMatch(/with a reason/);
    expect(thrown(() => tree.add(" ")).code).toBe("goal_invalid");
  });

  it("closing a goal abandons its open sub-goals with it, and says so", () => {
    const tree = new GoalTree();
    tree.add("Migrate the database");
    tree.add("Write the migration");
    tree.add("Test it on a copy");
    tree.add("Back up first", "g1");
    const changes = tree.done("g1", "migrated by hand instead");
    expect(changes.map((c) => (c.type === "goal_closed" ? `${c.goal.id}:${c.goal.status}` : c.type))).toEqual(
      ["g1:done", "g2:abandoned", "g3:abandoned", "g4:abandoned", "goal_focused"],
    );
    expect(tree.get("g3")).toMatchObject({ reason: "closed with g1 (done)", closedWith: "g1" });
    expect(tree.focused()).toBeUndefined();
    // With nothing focused, the next goal takes the focus wherever it goes.
    tree.add("Tell the team");
    expect(tree.focused()?.id).toBe("g5");
  });

  it("a sub-goal closed earlier keeps its own status and reason when its parent closes", () => {
    const tree = new GoalTree();
    tree.add("Speed up the build");
    tree.add("Cache node_modules");
    tree.abandon("g2", "the runner has no cache");
    tree.done("g1", "parallel jobs halved the time");
    expect(tree.get("g2")).toMatchObject({ status: "abandoned", reason: "the runner has no cache" });
    expect(tree.get("g2")?.closedWith).toBeUndefined();
  });

  it("refuses unknown and closed goals with errors that say what can be done", () => {
    const tree = new GoalTree();
    tree.add("A");
    tree.add("B");
    tree.done("g2", "ok");
    const missing = thrown(() => tree.focus("g9"));
    expect(missing).toMatchObject({
      code: "goal_not_found",
      message: 'There is no goal "g9".',
      hint: "Open goals: g1.",
    });
    const closed = thrown(() => tree.focus("g2"));
    expect(closed).toMatchObject({ code: "goal_invalid", message: "Cannot focus g2: it is already done." });
    expect(thrown(() => tree.done("g2", "again")).code).toBe("goal_invalid");
    expect(thrown(() => tree.add("C", "g2")).message).toBe("Cannot add under g2: it is already done.");
    expect(thrown(() => tree.add("C", "g7")).code).toBe("goal_not_found");
  });

  it("reads G2, ' g2 ' and 2 as g2; focusing the focused goal changes nothing", () => {
    const tree = new GoalTree();
    tree.add("A");
    tree.add("B", null);
    expect(tree.focus(" G2 ")).toEqual([{ type: "goal_focused", goalId: "g2", previousId: "g1" }]);
    expect(tree.focus("2")).toEqual([]);
    expect(tree.get("G1")?.id).toBe("g1");
  });

  it("ids stay sequential and are never reused", () => {
    const tree = new GoalTree();
    for (const title of ["a", "b", "c"]) tree.add(title, null);
    tree.abandon("g3", "not needed");
    tree.add("d", null);
    expect(tree.list().map((g) => g.id)).toEqual(["g1", "g2", "g3", "g4"]);
  });

  it("the goals handed out are copies: changing one does not change the tree", () => {
    const tree = new GoalTree();
    const [added] = tree.add("A");
    if (added?.type === "goal_added") added.goal.title = "changed";
    const got = tree.get("g1");
    if (got) got.status = "done";
    expect(tree.get("g1")).toMatchObject({ title: "A", status: "open" });
  });
});

describe("ensureRoot", () => {
  it("makes a focused root goal from the first 200 characters of the task", () => {
    const tree = new GoalTree({ currentStep: () => 1 });
    const task = `${"a".repeat(150)}\n\n${"b".repeat(348)}`;
    expect(task).toHaveLength(500);
    const changes = tree.ensureRoot(task);
    expect(changes.map((c) => c.type)).toEqual(["goal_added", "goal_focused"]);
    const root = tree.focused();
    expect(root?.id).toBe("g1");
    expect(root?.title).toHaveLength(200);
    expect(root?.title).toBe(`${"a".repeat(150)} ${"b".repeat(49)}`);
  });

  it("does nothing once any goal exists, even a closed one", () => {
    const tree = new GoalTree();
    tree.add("planned by the model");
    expect(tree.ensureRoot("the task")).toEqual([]);
    tree.done("g1", "done");
    expect(tree.ensureRoot("the task")).toEqual([]);
    expect(tree.size).toBe(1);
  });

  it("never splits a character made of two UTF-16 units", () => {
    const tree = new GoalTree();
    tree.ensureRoot("😀".repeat(300));
    expect(Array.from(tree.get("g1")?.title ?? "")).toHaveLength(200);
  });
});

describe("rendering", () => {
  it("is one line per goal: indentation, status marks, ids, → on the focus, short summaries", () => {
    const { tree } = loginPlan();
    expect(tree.render()).toBe(
      [
        "[ ] g1 Fix the login bug",
        "  [x] g2 Reproduce the failure — test fails on an empty password",
        "  [-] g3 Patch the regex validator — abandoned: breaks unicode emails",
        "  → [ ] g4 Rewrite validation with a parser",
        "  [ ] g5 Add tests for unicode emails",
      ].join("\n"),
    );
    expect(new GoalTree().render()).toBe("(no goals yet)");
  });

  it("folds a closed goal's sub-goals into a count and cuts long text to one short line", () => {
    const tree = new GoalTree();
    tree.add("Release 2.0");
    tree.add("Update the changelog");
    tree.add("Collect merged PRs");
    tree.add("Group them by area", "g2");
    tree.done("g2", `written;\n${"details ".repeat(40)}`);
    tree.add(`A title that goes on ${"and on ".repeat(30)}`, "g1");
    const lines = tree.render().split("\n");
    expect(lines[1]).toMatch(
      /^ {2}\[x\] g2 Update the changelog — written; details details .*… \(2 sub-goals\)$/,
    );
    expect(lines[1]!.length).toBeLessThan(200);
    expect(lines[2]).toMatch(/^ {2}→ \[ \] g5 A title that goes on (and on )+a?…$/);
    expect(lines).toHaveLength(3);
  });

  it("stays within maxLines on a big tree: closed goals fold first, the focus and its neighbours stay", () => {
    const tree = new GoalTree();
    tree.add("Port the test suite");
    for (let i = 0; i < 60; i++) {
      tree.add(`port file ${i}`, "g1");
      tree.done(`g${i + 2}`, `ported file ${i}`);
    }
    tree.add("port the last file");
    tree.add("fix its imports");
    const text = tree.render({ maxLines: 12 });
    const lines = text.split("\n");
    expect(lines.length).toBeLessThanOrEqual(12);
    expect(lines[0]).toBe("[ ] g1 Port the test suite");
    expect(text).toContain("    → [ ] g63 fix its imports");
    expect(text).toContain("  [ ] g62 port the last file");
    expect(text).toMatch(/\(\d+ closed goals: g2, g3, g4, g5, g6, g7, g8, g9, …\)/);
    // The most recently closed goals are the ones still shown in full.
    expect(text).toContain("[x] g61 port file 59 — ported file 59");
  });

  it("when open goals alone are too many, keeps the focus path and says how many lines are hidden", () => {
    const tree = new GoalTree();
    tree.add("Triage the backlog");
    for (let i = 0; i < 50; i++) tree.add(`issue ${i}`, "g1");
    tree.focus("g40");
    tree.add("reproduce issue 38");
    const lines = tree.render({ maxLines: 10 }).split("\n");
    expect(lines.length).toBeLessThanOrEqual(10);
    expect(lines).toContain("[ ] g1 Triage the backlog");
    expect(lines).toContain("  [ ] g40 issue 38");
    expect(lines).toContain("    → [ ] g52 reproduce issue 38");
    expect(lines.at(-1)).toMatch(/^… \d+ more goal lines not shown$/);
  });
});

describe("JSON form", () => {
  it("round-trips through JSON text: same goals, same focus, same rendering, ids continue", () => {
    const { tree } = loginPlan();
    const restored = GoalTree.fromJSON(JSON.parse(JSON.stringify(tree)), { currentStep: () => 9 });
    expect(restored.toJSON()).toEqual(tree.toJSON());
    expect(restored.render()).toBe(tree.render());
    expect(restored.focused()?.id).toBe("g4");
    restored.add("Next");
    expect(restored.get("g6")).toMatchObject({ parentId: "g4", createdStep: 9 });
  });

  it("refuses a stored tree that is not one", () => {
    expect(thrown(() => GoalTree.fromJSON(null)).code).toBe("internal_error");
    expect(thrown(() => GoalTree.fromJSON({ version: 2, goals: [], focusedId: null })).code).toBe(
      "internal_error",
    );
    const orphan = { id: "g2", parentId: "g1", title: "x", status: "open", createdStep: 0 };
    expect(() => GoalTree.fromJSON({ version: 1, goals: [orphan], focusedId: null })).toThrow(/invalid goal/);
    const closed = { id: "g1", parentId: null, title: "x", status: "done", summary: "s", createdStep: 0 };
    expect(() => GoalTree.fromJSON({ version: 1, goals: [closed], focusedId: "g1" })).toThrow(/not open/);
  });
});
