// The goal view of the history (seed 000 §12-14): once a goal is done or abandoned, the
// messages of its work (and of its sub-goals') are replaced, in what the model sees, by one
// summary message where they began (with any skill loaded there, which stays in force). An
// abandoned goal's reason stays in view for good: it is what already failed. A pure view: the stored history never changes, entries of open goals
// pass through as the same objects, and a summary is the same object on every call.
import type { Goal, GoalTree } from "../tools/index.js";
import type { HistoryEntry, Pin } from "./history.js";
import { isPinned, leavingPins, pinnedBlockText } from "./pinned.js";

// Per tree, the summary entry of each closed goal, so the wire layer's serialization cache
// and the providers' prompt caches keep hitting.
const summaries = new WeakMap<GoalTree, Map<string, HistoryEntry>>();

/**
 * The model's view of `entries`: every entry whose goal (or an ancestor of it) is closed is
 * replaced by one summary of the topmost closed goal, at the place of its first entry. A tool
 * call and its results always go together, following the assistant message that made them.
 */
export function applyGoalView(entries: readonly HistoryEntry[], tree: GoalTree): HistoryEntry[] {
  if (tree.size === 0) return [...entries];
  const closedTop = new Map<string, Goal | undefined>();
  const blockOf = (goalId: string): Goal | undefined => {
    if (!closedTop.has(goalId)) closedTop.set(goalId, topmostClosed(tree, goalId));
    return closedTop.get(goalId);
  };
  // Where each tool call went, so its results follow it even if they were tagged otherwise.
  const callBlock = new Map<string, Goal | undefined>();
  const blocks = entries.map((entry) => {
    const message = entry.message;
    let block: Goal | undefined;
    if (message.role === "toolResult" && callBlock.has(message.toolCallId)) {
      block = callBlock.get(message.toolCallId);
    } else {
      block = entry.goalId === undefined ? undefined : blockOf(entry.goalId);
    }
    if (message.role === "assistant") {
      for (const part of message.content) if (part.type === "toolCall") callBlock.set(part.id, block);
    }
    return block;
  });
  const anyPinned = entries.some(isPinned);
  const shown = new Set<string>();
  const out: HistoryEntry[] = [];
  entries.forEach((entry, index) => {
    const block = blocks[index];
    if (!block) {
      out.push(entry);
      return;
    }
    if (shown.has(block.id)) return;
    shown.add(block.id);
    // Skills loaded for this goal stay whole: they were in view at full size until now.
    const pins = anyPinned
      ? leavingPins(entries, (i) => blocks[i]?.id === block.id, {
          maxChars: Infinity,
          maxEachChars: Infinity,
        }).pins
      : [];
    out.push(summaryEntry(tree, block, entry, pins));
  });
  return out;
}

/** The closed goal highest up the path from `goalId` to its root, if any. */
function topmostClosed(tree: GoalTree, goalId: string): Goal | undefined {
  let top: Goal | undefined;
  for (const id of tree.path(goalId)) {
    const goal = tree.get(id);
    if (goal && goal.status !== "open") top = goal;
  }
  return top;
}

function summaryEntry(tree: GoalTree, goal: Goal, first: HistoryEntry, pins: readonly Pin[]): HistoryEntry {
  let byGoal = summaries.get(tree);
  if (!byGoal) {
    byGoal = new Map();
    summaries.set(tree, byGoal);
  }
  // A closed goal never changes again (nothing is added under it, nothing reopens), so
  // these facts name its summary for good.
  const block = pinnedBlockText(pins);
  const key = `${goal.id}\u0000${goal.status}\u0000${goal.summary ?? goal.reason ?? ""}\u0000${block}`;
  let entry = byGoal.get(key);
  if (!entry) {
    const text = goalSummaryText(tree, goal);
    entry = {
      step: first.step,
      goalId: goal.id,
      message: {
        role: "user",
        content: block ? `${text}\n\n${block}` : text,
        timestamp: first.message.timestamp,
      },
    };
    if (pins.length > 0) entry.pins = pins;
    byGoal.set(key, entry);
  }
  return entry;
}

/**
 * The text that stands for a closed goal's work: its title, its summary or reason, and the
 * reasons of the sub-goals given up on the way (abandoned with the goal itself are left out).
 */
export function goalSummaryText(tree: GoalTree, goal: Goal): string {
  const lines = [`[Goal ${goal.id} ${goal.status}] ${goal.title}`];
  if (goal.status === "done") lines.push(`Summary: ${goal.summary ?? ""}`);
  else lines.push(`Reason: ${goal.reason ?? ""}`);
  const failed = tree
    .list()
    .filter(
      (g) =>
        g.id !== goal.id &&
        g.status === "abandoned" &&
        g.closedWith === undefined &&
        tree.path(g.id).includes(goal.id),
    );
  if (failed.length > 0) {
    lines.push("Abandoned on the way:");
    for (const g of failed) lines.push(`- ${g.id} ${g.title}: ${g.reason ?? ""}`);
  }
  return lines.join("\n");
}
