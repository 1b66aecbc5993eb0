// The terminal's /rewind: a numbered list of this session's recent steps that changed files
// (and each run as a whole), the rewind to before the one picked shown as `reson rewind`
// shows it, then one question: files and conversation, files only, or nothing. `/rewind undo`
// puts back what the latest rewind changed.
import { applyRewind, type PreparedRewind, prepareRewind, workspaceSnapshots } from "../agent/index.js";
import { toResonError } from "../core/errors.js";
import { diffTrees, type SnapshotPoint } from "../snapshots/index.js";
import type { StepRecord, Store } from "../store/index.js";
import { printable } from "./file-diff.js";
import { describeRewind, rewindChangesNothing } from "./rewind-view.js";
import { reportError } from "./run-command.js";

/** Steps listed at most. */
const MAX_CHOICES = 9;

export interface RewindChoice {
  runId: string;
  /** Before this step of the run; absent: before the whole run. */
  toStep?: number;
  label: string;
}

export interface TerminalIo {
  write(text: string): void;
  read(prompt: string): Promise<string | null>;
}

/** The call a snapshot point was taken after, in a few words: its tool and command or path. */
function callSummary(steps: StepRecord[], point: SnapshotPoint): string {
  const model = steps.find(
    (record) => record.kind === "model_call" && (record.data as { step?: number }).step === point.step,
  );
  const call = steps.find(
    (record) =>
      record.kind === "tool_call" &&
      record.parentId === model?.id &&
      (record.data as { toolCallId?: string }).toolCallId === point.toolCallId,
  );
  const data = call?.data as { name?: string; arguments?: Record<string, unknown> } | undefined;
  if (!data?.name) return "";
  const subject = data.arguments?.command ?? data.arguments?.path;
  const text = typeof subject === "string" ? ` ${subject.replace(/\s+/g, " ")}` : "";
  return `${data.name}${text.length > 50 ? `${text.slice(0, 49)}…` : text}`;
}

function count(files: number): string {
  return `${files} file${files === 1 ? "" : "s"}`;
}

/** The session's recent steps that changed files, newest first, and each run as a whole. */
export async function rewindChoices(
  store: Store,
  sessionId: string,
  workspace: string,
): Promise<RewindChoice[]> {
  const snapshots = await workspaceSnapshots(workspace);
  const runs = (await store.traces.listBySession(sessionId)).filter((run) => run.parentTraceId === null);
  const choices: RewindChoice[] = [];
  for (const run of runs.reverse()) {
    const points = snapshots.points(run.id);
    if (points.length === 0) continue;
    const steps = await store.steps.list(run.id);
    const byStep = new Map<number, { last: SnapshotPoint; from: string }>();
    for (const [i, point] of points.entries()) {
      if (point.phase !== "after") continue;
      const seen = byStep.get(point.step);
      byStep.set(point.step, { last: point, from: seen?.from ?? points[i - 1]!.tree });
    }
    const stepChoices = [...byStep.entries()].sort((a, b) => b[0] - a[0]);
    for (const [step, { last, from }] of stepChoices) {
      const files = diffTrees(snapshots.objects, from, last.tree).length;
      choices.push({
        runId: run.id,
        toStep: step,
        label: `step ${step} of run ${run.id.slice(0, 12)}… (${printable(callSummary(steps, last))}): ${count(files)}`,
      });
    }
    const whole = diffTrees(snapshots.objects, points[0]!.tree, points.at(-1)!.tree).length;
    choices.push({
      runId: run.id,
      label: `run ${run.id.slice(0, 12)}… as a whole ("${printable(run.task.split("\n", 1)[0]!.slice(0, 40))}"): ${count(whole)}`,
    });
    if (choices.length >= MAX_CHOICES) break;
  }
  return choices.slice(0, MAX_CHOICES);
}

function filesOnly({ conversation: _kept, ...files }: PreparedRewind): PreparedRewind {
  return files;
}

/** `/rewind [undo]` in the terminal. */
export async function terminalRewind(
  store: Store,
  io: TerminalIo,
  options: { sessionId: string | undefined; workspace: string; undo: boolean },
): Promise<void> {
  try {
    let prepared: PreparedRewind;
    if (options.undo) {
      prepared = await prepareRewind(store, { undo: true, workspace: options.workspace });
    } else {
      if (!options.sessionId) {
        io.write(
          "No task in this session yet: nothing of it to rewind (`reson rewind <id>` for another run).\n",
        );
        return;
      }
      const choices = await rewindChoices(store, options.sessionId, options.workspace);
      if (choices.length === 0) {
        io.write("Nothing in this session changed files.\n");
        return;
      }
      io.write("Rewind the files to before (newest first):\n");
      io.write(choices.map((choice, i) => `  ${i + 1}) ${choice.label}\n`).join(""));
      const picked = Number((await io.read("which? (a number; empty to cancel) "))?.trim());
      const choice = Number.isInteger(picked) ? choices[picked - 1] : undefined;
      if (!choice) {
        io.write("Nothing was changed.\n");
        return;
      }
      prepared = await prepareRewind(store, {
        id: choice.runId,
        ...(choice.toStep === undefined ? {} : { toStep: choice.toStep }),
      });
    }
    io.write(`${describeRewind(prepared).join("\n")}\n`);
    if (rewindChangesNothing(prepared)) {
      io.write("Nothing to do.\n");
      return;
    }
    const overwrite = prepared.plan.conflicts.length > 0 ? ", overwriting the files marked !" : "";
    const question =
      prepared.conversation && !options.undo
        ? `Rewind files and conversation [y], files only [f], or nothing [N]${overwrite}? `
        : `Rewind${overwrite}? [y/N] `;
    const answer = ((await io.read(question)) ?? "").trim().toLowerCase();
    if (answer !== "y" && !(answer === "f" && prepared.conversation)) {
      io.write("Nothing was changed.\n");
      return;
    }
    const result = await applyRewind(store, answer === "f" ? filesOnly(prepared) : prepared, {
      force: prepared.plan.conflicts.length > 0,
    });
    io.write(
      `Done (${result.operations} change${result.operations === 1 ? "" : "s"} to files and folders). /rewind undo puts it back.\n`,
    );
  } catch (error) {
    reportError(toResonError(error));
  }
}
