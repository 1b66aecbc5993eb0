// After a run: remember it, count its outcome, reflect; a failure here never fails the run.
// Once per ending of the run: a "learning" step is committed with learning's last changes, so a
// resumed run that finds it (killed before run_end, or resumed again) learns nothing twice (the
// caller checks). Only the host's shutdown is passed on: then nothing was recorded, and the next
// holder of the run learns.
import { stoppedByHost } from "../core/abort.js";
import { serializeError, toResonError } from "../core/errors.js";
import type { EventBus, LearningReport } from "../core/events.js";
import type { TraceRecord } from "../store/index.js";
import type { Learning } from "./learning.js";
import type { RunRecorder } from "./recorder.js";
import { taskIsUntrusted } from "./run-trust.js";
import type { RunResult } from "./types.js";

export async function learnAfterRun(
  learning: Learning,
  run: { trace: TraceRecord; result: RunResult; recorder: RunRecorder; bus: EventBus; signal: AbortSignal },
): Promise<void> {
  const { trace, result, recorder, bus, signal } = run;
  const warn = (message: string) =>
    bus.emit({ type: "warning", runId: trace.id, step: result.steps, ts: Date.now(), message });
  const commitWith = recorder.learningMark();
  let report: LearningReport;
  try {
    report = await learning.afterRun({
      commitWith,
      commit: (ops) => recorder.write([...ops]),
      traceId: trace.id,
      sessionId: trace.sessionId,
      task: trace.task,
      status: result.status,
      ...(result.error ? { errorCode: result.error.code } : {}),
      finalText: result.finalText,
      steps: result.steps,
      ...(result.untrusted ? { untrusted: true } : {}),
      ...(taskIsUntrusted(trace.id, result.untrusted) ? { untrustedTask: true } : {}),
      signal,
    });
  } catch (error) {
    // Cut short by the host's shutdown: nothing is recorded, so the next holder learns.
    if (stoppedByHost(signal)) throw error;
    const failure = toResonError(error);
    warn(`learning from this run failed: ${failure.message}`);
    // Tried once, and recorded so: a resume does not try again.
    await recorder.learned({ error: serializeError(failure) }, false).catch(() => {});
    return;
  }
  // A reflection's changes were committed with the mark; otherwise it is written now.
  await recorder
    .learned(report, report.reflected)
    .catch((error: unknown) => warn(`could not record the learning step: ${toResonError(error).message}`));
  bus.emit({ type: "learning", runId: trace.id, step: result.steps, ts: Date.now(), ...report });
}
