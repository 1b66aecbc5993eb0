// How a run's trust starts: a resumed run keeps the sources of its checkpoint; a new one starts
// untrusted when its task's sender, its session or its parent run was, and says so; memory that
// quotes what an untrusted run wrote makes it untrusted too. Each change is an event
// (trust_changed) and a committed step, so the run's later checks and its sub-agents see it.
import type { UntrustedSource } from "../core/events.js";
import type { ActiveRun } from "./active-runs.js";
import type { LoopStart } from "./loop-start.js";
import { describeSource, type InheritedUntrust, RunTrust, UNTRUSTED_CONSEQUENCES } from "./run-trust.js";

/** Gives `run` its trust, announcing the untrust it starts with. */
export async function startTrust(
  run: ActiveRun,
  input: {
    start: LoopStart;
    inherited: InheritedUntrust | undefined;
    /** Set when a memory the run was shown was written after reading untrusted content. */
    recalledUntrustedOrigin: string | undefined;
  },
): Promise<void> {
  const { start, inherited } = input;
  const announce = async (source: UntrustedSource, via: "read" | InheritedUntrust["via"]) => {
    const what =
      via === "message"
        ? "was asked by"
        : via === "read"
          ? "read"
          : `continues a ${via === "session" ? "session" : "run"} that read`;
    const reason = `this run ${what} ${describeSource(source)}: ${UNTRUSTED_CONSEQUENCES}`;
    run.emit({ type: "trust_changed", untrusted: true, via, source, reason });
    await run.recorder.trustChanged({ step: run.step(), via, source, reason });
  };
  const initial = start.kind === "resume" ? (start.snapshot.untrusted ?? []) : (inherited?.sources ?? []);
  run.trust = new RunTrust(initial, (source) => announce(source, "read"));
  if (start.kind === "new" && inherited && inherited.sources[0])
    await announce(inherited.sources[0], inherited.via);
  // The prompt quotes what a run wrote after reading untrusted content: this run has read it.
  if (input.recalledUntrustedOrigin)
    await run.trust.mark({
      runId: run.trace.id,
      toolCallId: "memory",
      tool: "memory",
      origin: input.recalledUntrustedOrigin,
    });
}
