// The run's goal tree as the editor's plan: each goal an entry, in the order it was added,
// with its status (the focused open goal in progress, other open ones pending, closed ones
// completed; an abandoned goal says so in its text) and a priority by depth.
import type { PlanEntry, PlanEntryPriority } from "@agentclientprotocol/sdk";
import type { GoalChangedEvent } from "../core/events.js";
import type { Goal } from "../tools/index.js";

const PRIORITY_BY_DEPTH: readonly PlanEntryPriority[] = ["high", "medium", "low"];

export class PlanEntries {
  readonly #goals = new Map<string, Goal>();
  #focused: string | null = null;

  /** Applies one goal_changed event. */
  apply(event: GoalChangedEvent): void {
    const change = event.change as { type: string; goal?: Goal; goalId?: string | null };
    if ((change.type === "goal_added" || change.type === "goal_closed") && change.goal)
      this.#goals.set(change.goal.id, change.goal);
    if (change.type === "goal_focused") this.#focused = change.goalId ?? null;
  }

  /** The whole plan (ACP replaces the plan with each update). */
  entries(): PlanEntry[] {
    return [...this.#goals.values()].map((goal) => ({
      content:
        goal.status === "abandoned"
          ? `${goal.title} (abandoned${goal.reason ? `: ${goal.reason}` : ""})`
          : goal.title,
      priority: PRIORITY_BY_DEPTH[Math.min(this.#depth(goal), PRIORITY_BY_DEPTH.length - 1)]!,
      status: goal.status !== "open" ? "completed" : goal.id === this.#focused ? "in_progress" : "pending",
    }));
  }

  #depth(goal: Goal): number {
    let depth = 0;
    for (let parent = goal.parentId; parent && depth < 32; parent = this.#goals.get(parent)?.parentId ?? null)
      depth++;
    return depth;
  }
}
