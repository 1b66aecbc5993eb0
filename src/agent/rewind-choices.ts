// What a person picks from when rewinding a session: its recent steps that changed files
// (newest first) and each run as a whole, and then what to do with the rewind worked out
// (files and conversation, files only, or nothing). The terminal's /rewind and the editor's
// ask with these same choices, each in its own way (numbered lines and keys, the editor's
// permission request).
import { diffTrees, type SnapshotPoint } from "../snapshots/index.js";
import type { StepRecord, Store } from "../store/index.js";
import type { PreparedRewind } from "./run-rewind.js";
import { workspaceSnapshots } from "./step-snapshots.js";

/** Steps listed at most. */
export const MAX_REWIND_CHOICES = 9;

export interface RewindChoice {
  runId: string;
  /** Before this step of the run; absent: before the whole run. */
  toStep?: number;
  label: string;
}

/** How text from outside (a command, a path, a task) is shown: the terminal's sanitiser, or as it is. */
export type ShownText = (text: string) => string;

const asItIs: ShownText = (text) => text;

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
  shown: ShownText = asItIs,
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
        label: `step ${step} of run ${run.id.slice(0, 12)}… (${shown(callSummary(steps, last))}): ${count(files)}`,
      });
    }
    const whole = diffTrees(snapshots.objects, points[0]!.tree, points.at(-1)!.tree).length;
    choices.push({
      runId: run.id,
      label: `run ${run.id.slice(0, 12)}… as a whole ("${shown(run.task.split("\n", 1)[0]!.slice(0, 40))}"): ${count(whole)}`,
    });
    if (choices.length >= MAX_REWIND_CHOICES) break;
  }
  return choices.slice(0, MAX_REWIND_CHOICES);
}

/** What may be done with a rewind worked out: "all" (files and conversation), "files", "cancel". */
export type RewindAnswer = "all" | "files" | "cancel";

export interface RewindOption {
  answer: RewindAnswer;
  label: string;
}

/**
 * The answers a prepared rewind offers, in order: files and conversation and files only when
 * the conversation would go back too, else the one rewind; and nothing. The labels name an
 * overwrite of files someone changed since reson's last snapshot.
 */
export function rewindOptions(prepared: PreparedRewind): RewindOption[] {
  const overwrite = prepared.plan.conflicts.length > 0 ? ", overwriting the files changed since" : "";
  const cancel: RewindOption = { answer: "cancel", label: "Cancel: change nothing" };
  if (prepared.undoes) return [{ answer: "all", label: `Undo the rewind${overwrite}` }, cancel];
  if (!prepared.conversation) return [{ answer: "files", label: `Rewind the files${overwrite}` }, cancel];
  return [
    { answer: "all", label: `Rewind files and conversation${overwrite}` },
    { answer: "files", label: `Rewind files only, keep the conversation${overwrite}` },
    cancel,
  ];
}

/** The rewind an answer asks for (files only: without its conversation); undefined for cancel. */
export function answeredRewind(prepared: PreparedRewind, answer: RewindAnswer): PreparedRewind | undefined {
  if (answer === "cancel") return undefined;
  if (answer === "all") return prepared;
  const { conversation: _kept, ...files } = prepared;
  return files;
}
