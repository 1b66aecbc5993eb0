// The runs in flight of an agent and of its sub-agents, by id: what the subagent tool needs of
// the run that called it, and where a host's events for a run (an approval asked over HTTP, a
// plugin hook's failure) go, numbered at the step the run is at. An agent shares its registry
// with the agents its sub-agents run as, so a run is found whichever agent runs it.
import type { EventBus, ResonEvent } from "../core/events.js";
import type { TraceRecord } from "../store/index.js";
import type { RunBudget } from "./budget.js";
import type { RunRecorder } from "./recorder.js";
import { RunTrust } from "./run-trust.js";
import type { ParentRun } from "./subagent-tool.js";
import type { HostEvent, RunResult } from "./types.js";

/** A run in flight, as the subagent tool and its children need it. */
export interface ActiveRun extends ParentRun {
  trace: TraceRecord;
  recorder: RunRecorder;
  /** Whether the run has read untrusted content (its sub-agents start from it). */
  trust: RunTrust;
  /** The step the run is at. */
  step(): number;
  /** Sub-agent runs started by this run, awaited before the run returns. */
  children: Set<Promise<RunResult>>;
  emit(event: HostEvent): void;
}

export class ActiveRuns {
  readonly #runs = new Map<string, ActiveRun>();

  get(runId: string): ActiveRun | undefined {
    return this.#runs.get(runId);
  }

  /** Registers a run in flight; its events carry the step it is at. */
  register(
    trace: TraceRecord,
    recorder: RunRecorder,
    budget: RunBudget,
    bus: EventBus,
    firstStep: number,
  ): ActiveRun {
    let step = firstStep;
    bus.subscribe((event) => {
      step = event.step;
    });
    const run: ActiveRun = {
      trace,
      recorder,
      budget,
      trust: new RunTrust(),
      step: () => step,
      children: new Set(),
      emit: (event) => bus.emit({ ...event, runId: trace.id, step, ts: Date.now() } as ResonEvent),
    };
    this.#runs.set(trace.id, run);
    return run;
  }

  /** The run ended: no longer found. */
  delete(runId: string): void {
    this.#runs.delete(runId);
  }
}
