// A rewind as a person reads it before saying yes: what it restores and removes, what it
// leaves alone because reson never tracked it, which of the files it overwrites someone
// changed since reson's last snapshot (the conflicts, named), and what happens to the
// conversation. `reson rewind`, the terminal's /rewind and the editor's show the same lines.
import { notTrackedReason, type PathChange } from "../snapshots/index.js";
import type { ShownText } from "./rewind-choices.js";
import type { PreparedRewind } from "./run-rewind.js";

/** Lines of changes listed before the rest is counted. */
const MAX_LISTED = 40;

function verb(change: PathChange): string {
  // From the workspace now to the snapshot: what is not in the snapshot goes.
  if (change.change === "added") return change.after?.kind === "dir" ? "make" : "restore";
  if (change.change === "deleted") return "remove";
  if (change.change === "mode") return "mode";
  return "restore";
}

/** What a rewind does, line by line; `shown` passes outside text (paths, the task) for display. */
export function describeRewind(prepared: PreparedRewind, shown: ShownText = (text) => text): string[] {
  const { plan, run, undoes, toStep, conversation } = prepared;
  const what = undoes
    ? `Undo rewind ${undoes.id}${undoes.runId ? ` (of run ${undoes.runId})` : ""}`
    : `Rewind run ${run!.id} ("${shown(run!.task.split("\n", 1)[0]!.slice(0, 60))}") to before ${toStep === undefined ? "it started" : `its step ${toStep}`}`;
  const lines = [`${what}, in ${shown(prepared.workspace)}:`];
  for (const id of prepared.completed) lines.push(`  (an interrupted rewind, ${id}, was completed first)`);
  if (plan.changes.length === 0) lines.push("  no file changes: the files are already as they were");
  const conflicts = new Set(plan.conflicts);
  for (const change of plan.changes.slice(0, MAX_LISTED)) {
    const folder = (change.after ?? change.before)?.kind === "dir" ? "/" : "";
    const mark = conflicts.has(change.path) ? "  ! changed since" : "";
    lines.push(`  ${verb(change).padEnd(8)}${shown(change.path)}${folder}${mark}`);
  }
  if (plan.changes.length > MAX_LISTED) lines.push(`  … and ${plan.changes.length - MAX_LISTED} more`);
  if (plan.untracked.length > 0) {
    const listed = plan.untracked
      .slice(0, 10)
      .map((change) => {
        const entry = change.before?.kind === "excluded" ? change.before : change.after!;
        return `${shown(change.path)} (${notTrackedReason(entry)})`;
      })
      .join(", ");
    const more = plan.untracked.length > 10 ? ` and ${plan.untracked.length - 10} more` : "";
    lines.push(`  left as they are, not tracked: ${listed}${more}`);
  }
  if (plan.conflicts.length > 0)
    lines.push(
      `  ! ${plan.conflicts.length} file${plan.conflicts.length === 1 ? " was" : "s were"} changed since reson's last snapshot (by you or another program): the rewind overwrites ${plan.conflicts.length === 1 ? "it" : "them"}`,
    );
  if (conversation) {
    const dropped = conversation.after.length > conversation.before.length;
    lines.push(
      dropped
        ? "  the conversation goes back too: later runs of the session no longer see this run's turns from there on (--files-only keeps them)"
        : "  the conversation comes back as it was before that rewind",
    );
  }
  return lines;
}

/** Whether a prepared rewind would change anything at all. */
export function rewindChangesNothing(prepared: PreparedRewind): boolean {
  return prepared.plan.ops.length === 0 && prepared.conversation === undefined;
}
