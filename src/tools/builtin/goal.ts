// goal: the model's plan as a tree (seed 000 §11-14). Each call changes the run's goal tree
// and answers with what changed and the tree as it now is; the tree itself is shown again at
// the end of every request, so the answer is shown once and then kept as one line.
import { Type } from "typebox";
import { ResonError } from "../../core/errors.js";
import type { GoalChange, GoalTree } from "../goal-tree.js";
import type { ToolDefinition } from "../types.js";

const ACTIONS = ["add", "done", "abandon", "focus"] as const;
type Action = (typeof ACTIONS)[number];

const parameters = Type.Object(
  {
    action: Type.Enum(ACTIONS, { type: "string", description: "add, done, abandon or focus." }),
    title: Type.Optional(Type.String({ description: "add: what the goal is, in a short sentence." })),
    parent: Type.Optional(
      Type.String({
        description:
          'add: the goal to put it under (e.g. "g1"), or "root" for a top-level goal; default the focused goal.',
      }),
    ),
    id: Type.Optional(
      Type.String({
        description:
          'done, abandon: which goal (default the focused one); focus: the goal to focus, e.g. "g2".',
      }),
    ),
    summary: Type.Optional(
      Type.String({ description: "done: what was achieved and found, in a sentence or two." }),
    ),
    reason: Type.Optional(
      Type.String({ description: "abandon: why it failed or is not needed, so it is not tried again." }),
    ),
  },
  { additionalProperties: false },
);

/** What each action needs besides `action`, for the error when it is missing. */
const NEEDS: Record<Action, string> = {
  add: '{"action": "add", "title": "…", "parent"?: "g1" | "root"}',
  done: '{"action": "done", "summary": "…", "id"?: "g2"}',
  abandon: '{"action": "abandon", "reason": "…", "id"?: "g2"}',
  focus: '{"action": "focus", "id": "g2"}',
};

function missing(action: Action, field: string): ResonError {
  return new ResonError("tool_invalid_arguments", `goal ${action} needs ${field}.`, {
    hint: `Call it as goal ${NEEDS[action]}.`,
    details: { tool: "goal", field },
  });
}

function given(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === "" ? undefined : value;
}

/** The goal done/abandon act on: the one named, else the focused one. */
function target(tree: GoalTree, action: "done" | "abandon", id: string | undefined): string {
  const named = given(id);
  if (named !== undefined) return named;
  const focused = tree.focused();
  if (focused) return focused.id;
  throw new ResonError("tool_invalid_arguments", `goal ${action} needs id: no goal is focused.`, {
    hint: `Say which goal, e.g. goal ${NEEDS[action]}.`,
    details: { tool: "goal", field: "id" },
  });
}

/** One sentence per change, e.g. "Added g3 under g1." */
function describe(change: GoalChange): string {
  switch (change.type) {
    case "goal_added": {
      const where = change.goal.parentId === null ? "as a top-level goal" : `under ${change.goal.parentId}`;
      return `Added ${change.goal.id} ${where}.`;
    }
    case "goal_closed": {
      const goal = change.goal;
      if (goal.closedWith !== undefined)
        return `${goal.id} was still open: abandoned with ${goal.closedWith}.`;
      return `${goal.id} is ${goal.status}.`;
    }
    case "goal_focused":
      return change.goalId === null ? "No goal is focused now." : `Focus is on ${change.goalId}.`;
  }
}

export const goalTool: ToolDefinition<typeof parameters> = {
  name: "goal",
  description:
    "Keep your plan as a tree of goals (ids g1, g2, …); the tree is shown to you at the end of every request, " +
    "with [ ] open, [x] done, [-] abandoned and → on the focused goal. Your work counts toward the focused goal. " +
    'add: a new goal under parent (default: the focused goal; "root" for a top-level one); a goal added under ' +
    "the focused goal becomes the focused goal, so add the step you start on now, or add several steps with the " +
    "same parent and then focus the first. done: close a goal (default the focused one) with a summary of what " +
    "was achieved; the messages of its work are then replaced by that summary, so put in it what you still need. " +
    "abandon: give a goal up with the reason it failed, which stays in view so it is not tried again. Closing a " +
    "goal also abandons its open sub-goals; the focus moves to its next open sibling, else its parent. " +
    "focus: switch to an open goal.",
  parameters,
  // Not read-only: goal calls change the run's plan and must run in the order given.
  readOnly: false,
  changesFiles: false,
  async execute(args, ctx) {
    const tree = ctx.goals;
    if (!tree) {
      throw new ResonError("tool_failed", "Goals are not available in this run.", {
        hint: "Carry on without the goal tool.",
      });
    }
    let changes: GoalChange[];
    let memory: string;
    switch (args.action) {
      case "add": {
        const title = given(args.title);
        if (title === undefined) throw missing("add", "title");
        const parent = given(args.parent);
        changes = tree.add(title, parent?.trim() === "root" ? null : parent);
        const added = changes.find((c) => c.type === "goal_added");
        memory = `goal add ${added?.type === "goal_added" ? added.goal.id : ""}: ${title.trim()}`;
        break;
      }
      case "done":
      case "abandon": {
        const field = args.action === "done" ? "summary" : "reason";
        const text = given(args[field]);
        if (text === undefined) throw missing(args.action, field);
        const id = target(tree, args.action, args.id);
        changes = args.action === "done" ? tree.done(id, text) : tree.abandon(id, text);
        memory = `goal ${args.action} ${tree.get(id)?.id ?? id}: ${text.trim()}`;
        break;
      }
      case "focus": {
        const id = given(args.id);
        if (id === undefined) throw missing("focus", "id");
        changes = tree.focus(id);
        memory = `goal focus ${tree.get(id)?.id ?? id}`;
        break;
      }
    }
    const focused = tree.focused()?.id;
    const said =
      changes.length > 0
        ? changes.map(describe).join(" ")
        : `Nothing changed; focus is on ${focused ?? "no goal"}.`;
    return {
      content: `${said}\n\nGoals:\n${tree.render()}`,
      longTermMemory: oneLine(memory),
      includeOutputOnlyOnce: true,
    };
  },
};

const MEMORY_CHARS = 200;

function oneLine(text: string): string {
  const flat = text.replace(/\s+/g, " ");
  return flat.length <= MEMORY_CHARS ? flat : `${flat.slice(0, MEMORY_CHARS)}…`;
}
