// The goal tree of a run: the model's plan (seed 000 §12-14). Goals have short sequential
// ids (g1, g2, …), one of them is focused (the loop tags each step's messages with it), and
// every change returns what changed so the agent can emit events. Closing a goal closes its
// open sub-goals too, as abandoned, so an open goal's ancestors are always open.
import { ResonError } from "../core/errors.js";

export type GoalStatus = "open" | "done" | "abandoned";

export interface Goal {
  /** "g1", "g2", … in order of creation; never reused. */
  id: string;
  parentId: string | null;
  title: string;
  status: GoalStatus;
  /** What was achieved; set when done. */
  summary?: string;
  /** Why it was given up; set when abandoned. */
  reason?: string;
  /** When closed because an ancestor was closed: that ancestor's id. */
  closedWith?: string;
  createdStep: number;
  closedStep?: number;
  /** Sub-agent runs (subagent tool) started while this goal was focused; kept, never rendered. */
  subTraceIds?: string[];
}

/** What an operation changed, in order; the agent turns these into events. */
export type GoalChange =
  | { type: "goal_added"; goal: Goal }
  | { type: "goal_closed"; goal: Goal }
  | { type: "goal_focused"; goalId: string | null; previousId: string | null };

/** The plain-data form kept in checkpoints and traces. */
export interface GoalTreeJSON {
  version: 1;
  goals: Goal[];
  focusedId: string | null;
}

export interface GoalTreeOptions {
  /** The loop step now running, stamped on goals as they open and close; default 0. */
  currentStep?: () => number;
}

export interface GoalRenderOptions {
  /** At most this many lines; default 40. Closed goals give way first, then far-off open ones. */
  maxLines?: number;
}

/** A root goal made from the task takes its first this-many characters. */
export const ROOT_TITLE_CHARS = 200;
const DEFAULT_RENDER_LINES = 40;
/** Titles, summaries and reasons are cut to this in the rendered tree (kept whole in the goals). */
const RENDER_TEXT_CHARS = 120;

const MARK: Record<GoalStatus, string> = { open: "[ ]", done: "[x]", abandoned: "[-]" };

/** The first `max` characters (code points, so no surrogate pair is split). */
function firstChars(text: string, max: number): string {
  const chars = Array.from(text);
  return chars.length <= max ? text : chars.slice(0, max).join("");
}

/** One line of at most `max` characters, with "…" when cut. */
function oneLine(text: string, max: number): string {
  const flat = text.replace(/\s+/g, " ").trim();
  const cut = firstChars(flat, max);
  return cut === flat ? flat : `${cut}…`;
}

function nonEmpty(value: string, message: string, hint: string): string {
  const trimmed = value.trim();
  if (trimmed === "") throw new ResonError("goal_invalid", message, { hint });
  return trimmed;
}

function copy(goal: Goal): Goal {
  return goal.subTraceIds ? { ...goal, subTraceIds: [...goal.subTraceIds] } : { ...goal };
}

export class GoalTree {
  readonly #goals = new Map<string, Goal>();
  #focusedId: string | null = null;
  readonly #currentStep: () => number;

  constructor(options: GoalTreeOptions = {}) {
    this.#currentStep = options.currentStep ?? (() => 0);
  }

  static fromJSON(data: unknown, options: GoalTreeOptions = {}): GoalTree {
    const tree = new GoalTree(options);
    const state = data as Partial<GoalTreeJSON> | null;
    if (typeof state !== "object" || state === null || state.version !== 1 || !Array.isArray(state.goals)) {
      throw new ResonError("internal_error", "The stored goal tree is not a goal tree (version 1).");
    }
    for (const [index, goal] of state.goals.entries()) {
      if (!tree.#fits(goal)) {
        throw new ResonError(
          "internal_error",
          `The stored goal tree has an invalid goal (number ${index + 1}).`,
        );
      }
      tree.#goals.set(goal.id, copy(goal));
    }
    const focused = state.focusedId ?? null;
    if (focused !== null && tree.#goals.get(focused)?.status !== "open") {
      throw new ResonError("internal_error", `The stored goal tree focuses ${focused}, which is not open.`);
    }
    tree.#focusedId = focused;
    return tree;
  }

  /** A stored goal that can join this tree: well formed, new, under a goal it already has. */
  #fits(goal: unknown): goal is Goal {
    if (typeof goal !== "object" || goal === null) return false;
    const g = goal as Partial<Goal>;
    return (
      typeof g.id === "string" &&
      /^g\d+$/.test(g.id) &&
      !this.#goals.has(g.id) &&
      (g.parentId === null || (typeof g.parentId === "string" && this.#goals.has(g.parentId))) &&
      typeof g.title === "string" &&
      typeof g.status === "string" &&
      g.status in MARK &&
      typeof g.createdStep === "number" &&
      (g.subTraceIds === undefined ||
        (Array.isArray(g.subTraceIds) && g.subTraceIds.every((id) => typeof id === "string")))
    );
  }

  toJSON(): GoalTreeJSON {
    return { version: 1, goals: this.list(), focusedId: this.#focusedId };
  }

  get size(): number {
    return this.#goals.size;
  }

  /** All goals in creation order (copies). */
  list(): Goal[] {
    return [...this.#goals.values()].map(copy);
  }

  /** The goal with this id ("g2"; "G2" and "2" are read as "g2"), or undefined. */
  get(id: string): Goal | undefined {
    const goal = this.#goals.get(normalizeId(id));
    return goal ? copy(goal) : undefined;
  }

  /** The goals directly under `id` (null: the roots), in creation order. */
  children(id: string | null): Goal[] {
    return [...this.#goals.values()].filter((g) => g.parentId === id).map(copy);
  }

  focused(): Goal | undefined {
    return this.#focusedId === null ? undefined : this.get(this.#focusedId);
  }

  /**
   * Adds a goal. `parentId` undefined: under the focused goal (a root when none is focused);
   * null: a root. The new goal takes the focus when it is added under the focused goal or
   * nothing is focused, so the steps that follow count toward it; added elsewhere (a plan's
   * later steps), the focus stays where it was.
   */
  add(title: string, parentId?: string | null): GoalChange[] {
    const text = nonEmpty(
      title,
      "A goal needs a title.",
      'e.g. {"action": "add", "title": "Fix the parser"}.',
    );
    const parent = this.#parentFor(parentId);
    const goal: Goal = {
      id: `g${this.#nextNumber()}`,
      parentId: parent,
      title: text,
      status: "open",
      createdStep: this.#currentStep(),
    };
    this.#goals.set(goal.id, goal);
    const changes: GoalChange[] = [{ type: "goal_added", goal: copy(goal) }];
    if (parent === this.#focusedId || this.#focusedId === null) changes.push(this.#setFocus(goal.id));
    return changes;
  }

  /** Closes a goal as achieved; its open sub-goals close with it (abandoned). */
  done(id: string, summary: string): GoalChange[] {
    const text = nonEmpty(
      summary,
      "A goal is closed as done with a summary.",
      "Say in a sentence or two what was achieved and what was found.",
    );
    return this.#close(this.#open(id, "close"), "done", text);
  }

  /** Gives a goal up with the reason (kept in view for good); its open sub-goals close with it. */
  abandon(id: string, reason: string): GoalChange[] {
    const text = nonEmpty(
      reason,
      "A goal is abandoned with a reason.",
      "Say why it failed or is not needed, so it is not tried again.",
    );
    return this.#close(this.#open(id, "abandon"), "abandoned", text);
  }

  focus(id: string): GoalChange[] {
    const goal = this.#open(id, "focus");
    if (goal.id === this.#focusedId) return [];
    return [this.#setFocus(goal.id)];
  }

  /**
   * When no goal exists yet: a root goal from the first 200 characters of the task, focused.
   * The loop calls this when the model acts before planning (and not through `goal`).
   */
  ensureRoot(task: string): GoalChange[] {
    if (this.#goals.size > 0) return [];
    const title = firstChars(task.replace(/\s+/g, " ").trim(), ROOT_TITLE_CHARS) || "The task";
    return this.add(title, null);
  }

  /**
   * Notes sub-agent runs under a goal (any status: a goal may close while its sub-agents
   * still run), so the trace of a goal leads to the runs that worked on it.
   */
  recordSubTraces(goalId: string, traceIds: readonly string[]): void {
    const goal = this.#goals.get(normalizeId(goalId));
    if (!goal || traceIds.length === 0) return;
    goal.subTraceIds = [...(goal.subTraceIds ?? []), ...traceIds];
  }

  /** The ids from `id` up to its root, `id` first. */
  path(id: string): string[] {
    const out: string[] = [];
    for (let goal = this.#goals.get(normalizeId(id)); goal; goal = this.#goal(goal.parentId)) {
      out.push(goal.id);
    }
    return out;
  }

  /**
   * The compact form for the model: one line per goal, indented under its parent, with
   * `[ ]` open, `[x]` done, `[-]` abandoned and `→` on the focused goal. A closed goal is one
   * line (title and short summary or reason; its sub-goals folded into a count).
   */
  render(options: GoalRenderOptions = {}): string {
    if (this.#goals.size === 0) return "(no goals yet)";
    const maxLines = Math.max(3, options.maxLines ?? DEFAULT_RENDER_LINES);
    let rows = this.#rows();
    if (rows.length > maxLines) rows = foldClosed(rows, maxLines);
    if (rows.length > maxLines) rows = keepNearFocus(rows, maxLines);
    return rows.map((row) => row.text).join("\n");
  }

  /** Where `add` puts a goal: undefined is the focused goal (or the top), null the top. */
  #parentFor(parentId: string | null | undefined): string | null {
    if (parentId === undefined) return this.#focusedId;
    if (parentId === null) return null;
    return this.#open(parentId, "add under").id;
  }

  #goal(id: string | null): Goal | undefined {
    return id === null ? undefined : this.#goals.get(id);
  }

  #nextNumber(): number {
    let highest = 0;
    for (const id of this.#goals.keys()) highest = Math.max(highest, Number(id.slice(1)));
    return highest + 1;
  }

  /** The open goal `id`, or a goal_not_found / goal_invalid error saying what can be done. */
  #open(id: string, doing: string): Goal {
    const goal = this.#goals.get(normalizeId(id));
    if (!goal) {
      const open = [...this.#goals.values()].filter((g) => g.status === "open").map((g) => g.id);
      throw new ResonError("goal_not_found", `There is no goal ${JSON.stringify(id)}.`, {
        hint: open.length > 0 ? `Open goals: ${open.join(", ")}.` : "There are no open goals; add one first.",
        details: { id },
      });
    }
    if (goal.status !== "open") {
      throw new ResonError("goal_invalid", `Cannot ${doing} ${goal.id}: it is already ${goal.status}.`, {
        hint: "A closed goal stays closed; add a new goal for further work.",
        details: { id: goal.id, status: goal.status },
      });
    }
    return goal;
  }

  #setFocus(id: string | null): GoalChange {
    const previousId = this.#focusedId;
    this.#focusedId = id;
    return { type: "goal_focused", goalId: id, previousId };
  }

  #close(goal: Goal, status: "done" | "abandoned", text: string): GoalChange[] {
    const step = this.#currentStep();
    const changes: GoalChange[] = [];
    const closeOne = (target: Goal, how: "done" | "abandoned", words: string, withId?: string) => {
      target.status = how;
      if (how === "done") target.summary = words;
      else target.reason = words;
      if (withId !== undefined) target.closedWith = withId;
      target.closedStep = step;
      changes.push({ type: "goal_closed", goal: copy(target) });
    };
    closeOne(goal, status, text);
    for (const below of this.#descendants(goal.id)) {
      if (below.status === "open")
        closeOne(below, "abandoned", `closed with ${goal.id} (${status})`, goal.id);
    }
    const focused = this.#goal(this.#focusedId);
    if (focused && focused.status !== "open") changes.push(this.#setFocus(this.#nextFocus(goal)));
    return changes;
  }

  /**
   * Where the focus goes when `closed` closes over it: its first open sibling, else its
   * nearest open ancestor, else nowhere.
   */
  #nextFocus(closed: Goal): string | null {
    const sibling = [...this.#goals.values()].find(
      (g) => g.parentId === closed.parentId && g.status === "open",
    );
    if (sibling) return sibling.id;
    for (let up = this.#goal(closed.parentId); up; up = this.#goal(up.parentId)) {
      if (up.status === "open") return up.id;
    }
    return null;
  }

  #descendants(id: string): Goal[] {
    // Creation order puts every goal after its parent, so one pass finds the whole subtree.
    const inside = new Set([id]);
    const out: Goal[] = [];
    for (const goal of this.#goals.values()) {
      if (goal.parentId === null || !inside.has(goal.parentId)) continue;
      inside.add(goal.id);
      out.push(goal);
    }
    return out;
  }

  /** Every goal as a row in tree order, closed goals without their subtrees. */
  #rows(): Row[] {
    const under = new Map<string | null, Goal[]>();
    const subtreeSize = new Map<string, number>();
    for (const goal of this.#goals.values()) {
      const siblings = under.get(goal.parentId);
      if (siblings) siblings.push(goal);
      else under.set(goal.parentId, [goal]);
    }
    for (const goal of [...this.#goals.values()].reverse()) {
      if (goal.parentId === null) continue;
      const size = (subtreeSize.get(goal.parentId) ?? 0) + 1 + (subtreeSize.get(goal.id) ?? 0);
      subtreeSize.set(goal.parentId, size);
    }
    const focus = this.#goal(this.#focusedId);
    const near = new Set(
      focus ? [...this.path(focus.id), ...(under.get(focus.parentId) ?? []).map((g) => g.id)] : [],
    );
    const rows: Row[] = [];
    const visit = (parentId: string | null, depth: number) => {
      for (const goal of under.get(parentId) ?? []) {
        const hidden = goal.status === "open" ? 0 : (subtreeSize.get(goal.id) ?? 0);
        const important = near.has(goal.id) || (focus !== undefined && goal.parentId === focus.id);
        rows.push({ goal, depth, text: this.#line(goal, depth, hidden), important });
        if (goal.status === "open") visit(goal.id, depth + 1);
      }
    };
    visit(null, 0);
    return rows;
  }

  #line(goal: Goal, depth: number, hiddenBelow: number): string {
    const focus = goal.id === this.#focusedId ? "→ " : "";
    let text = `${"  ".repeat(depth)}${focus}${MARK[goal.status]} ${goal.id} ${oneLine(goal.title, RENDER_TEXT_CHARS)}`;
    if (goal.status === "done" && goal.summary) text += ` — ${oneLine(goal.summary, RENDER_TEXT_CHARS)}`;
    if (goal.status === "abandoned" && goal.reason)
      text += ` — abandoned: ${oneLine(goal.reason, RENDER_TEXT_CHARS)}`;
    if (hiddenBelow > 0) text += ` (${hiddenBelow} sub-goal${hiddenBelow === 1 ? "" : "s"})`;
    return text;
  }
}

interface Row {
  goal: Goal;
  depth: number;
  text: string;
  /** On the focused goal's path, its siblings or its children: kept when the tree is cut. */
  important: boolean;
}

/** Reads "G2", " g2 " and "2" as "g2". */
function normalizeId(id: string): string {
  const trimmed = id.trim().toLowerCase();
  return /^\d+$/.test(trimmed) ? `g${trimmed}` : trimmed;
}

/** A folded line names at most this many of its goals. */
const FOLDED_IDS = 8;

/**
 * Folds closed goals, the oldest first, into one line per parent ("(3 closed goals: g2, g4,
 * g5)") until the rows fit.
 */
function foldClosed(rows: readonly Row[], maxLines: number): Row[] {
  const closed = rows
    .filter((row) => row.goal.status !== "open")
    .sort((a, b) => (a.goal.closedStep ?? 0) - (b.goal.closedStep ?? 0) || idOrder(a.goal.id, b.goal.id));
  const folded = new Set<Row>();
  const lineCount = () => {
    const groups = new Set([...folded].map((row) => row.goal.parentId));
    return rows.length - folded.size + groups.size;
  };
  for (const row of closed) {
    if (lineCount() <= maxLines) break;
    folded.add(row);
  }
  const out: Row[] = [];
  const written = new Set<string | null>();
  for (const row of rows) {
    if (!folded.has(row)) {
      out.push(row);
      continue;
    }
    const parent = row.goal.parentId;
    if (written.has(parent)) continue;
    written.add(parent);
    const group = rows.filter((r) => folded.has(r) && r.goal.parentId === parent).map((r) => r.goal.id);
    const shown =
      group.length > FOLDED_IDS ? `${group.slice(0, FOLDED_IDS).join(", ")}, …` : group.join(", ");
    const text = `${"  ".repeat(row.depth)}(${group.length} closed goal${group.length === 1 ? "" : "s"}: ${shown})`;
    out.push({ goal: row.goal, depth: row.depth, text, important: false });
  }
  return out;
}

/** Keeps the rows near the focus and as many others as fit, in order; one line counts the rest. */
function keepNearFocus(rows: readonly Row[], maxLines: number): Row[] {
  const budget = maxLines - 1;
  const keep = new Set(rows.filter((row) => row.important).slice(0, budget));
  for (const row of rows) {
    if (keep.size >= budget) break;
    keep.add(row);
  }
  const out = rows.filter((row) => keep.has(row));
  const left = rows.length - out.length;
  const last = rows.at(-1);
  if (left > 0 && last) {
    out.push({
      goal: last.goal,
      depth: 0,
      text: `… ${left} more goal line${left === 1 ? "" : "s"} not shown`,
      important: false,
    });
  }
  return out;
}

function idOrder(a: string, b: string): number {
  return Number(a.slice(1)) - Number(b.slice(1));
}
