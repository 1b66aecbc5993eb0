// A worker: takes queued runs from the store and executes them, up to `concurrency` at once,
// each under the lease its claim took. Woken by the store when a run is queued or put back
// (PostgreSQL: from any machine) and by a poll for what no notification announces: backoffs
// that end, and leases of dead workers that expire, which the claim itself takes over. On
// stop it takes nothing more, lets running runs finish within the grace period, then stops
// them at their next safe point and puts them back for another worker. The runs' live text is
// relayed through the store for the processes that stream it.
import { hostname } from "node:os";
import { hostStoppingError } from "../core/abort.js";
import { toResonError } from "../core/errors.js";
import type { ResonEvent } from "../core/events.js";
import {
  holderAlive,
  leaseHolder,
  type RunRequestRecord,
  type Store,
  type Unsubscribe,
} from "../store/index.js";
import { LiveTextRelay } from "./live-relay.js";
import { type ExecutionOutcome, type ExecutorSettings, executeClaimed } from "./run-executor.js";

export interface WorkerOptions extends Omit<ExecutorSettings, "role"> {
  store: Store;
  /** Runs executed at once by this worker (default 1). */
  concurrency?: number;
  /** Poll for expired leases and ended backoffs (default 1 s, with jitter). */
  pollMs?: number;
  /** What holds the leases (default "reson worker"). */
  role?: string;
  /** One line per thing that happened (claims, ends, errors): the worker's log. */
  log?: (entry: WorkerLogEntry) => void;
  /** Told of every claim (for metrics: a first attempt, a retry, a takeover). */
  onClaim?: (request: RunRequestRecord) => void;
  /** Told how every claimed run ended here. */
  onOutcome?: (outcome: ExecutionOutcome) => void;
}

export interface WorkerLogEntry {
  level: "info" | "warn" | "error";
  message: string;
  runId?: string;
  sessionId?: string;
  workerId: string;
  [key: string]: unknown;
}

export class Worker {
  readonly id: string;
  readonly #options: WorkerOptions;
  readonly #role: string;
  readonly #running = new Map<string, Promise<void>>();
  readonly #shutdown = new AbortController();
  /** The runs' live text, for the processes that stream it (serve in front of workers). */
  readonly #liveText: LiveTextRelay;
  #stopping = false;
  #claiming = false;
  #again = false;
  #timer: NodeJS.Timeout | undefined;
  #unsubscribe: Unsubscribe | undefined;
  #idle: Array<() => void> = [];
  #polls = 0;

  constructor(options: WorkerOptions) {
    this.#options = options;
    this.#role = options.role ?? "reson worker";
    this.#liveText = new LiveTextRelay(options.store);
    this.id = `${hostname()}:${process.pid}:${Math.random().toString(36).slice(2, 8)}`;
  }

  /** Runs executing now. */
  get active(): number {
    return this.#running.size;
  }

  async start(): Promise<void> {
    this.#unsubscribe = await this.#options.store.queue.subscribe(() => this.#wake(), {
      onGap: () => this.#wake(),
    });
    await this.#freeDeadLocalLeases().catch((error: unknown) =>
      this.#log("warn", `could not check the runs of dead processes: ${toResonError(error).message}`),
    );
    this.#schedulePoll();
    this.#wake();
  }

  /**
   * Runs left "running" by a process of this machine that is gone (a killed serve or worker
   * restarted here) are let go at once instead of after their lease's TTL: the next claim
   * resumes them. A holder on another machine is left to its lease.
   */
  async #freeDeadLocalLeases(): Promise<void> {
    const { store } = this.#options;
    for (const request of await store.queue.list({ status: "running", limit: 1000 })) {
      const lease = await store.leases.get(request.id);
      if (lease?.state !== "held" || holderAlive(lease.holder) !== false) continue;
      if (await store.leases.release({ traceId: lease.traceId, epoch: lease.epoch }))
        this.#log("info", "freed the run of a process that is gone", {
          runId: request.id,
          sessionId: request.sessionId,
          holder: lease.holder.id,
        });
    }
  }

  /**
   * Takes no more runs; waits up to `graceMs` for the running ones, then stops them at their
   * next safe point and puts them back in the queue (another worker resumes each at once). A
   * stopped run does not end (no run_end, no learning): the call it was inside is killed and
   * left unrecorded, and the next holder tells the model it was interrupted.
   */
  async stop(graceMs: number): Promise<void> {
    this.#stopping = true;
    clearTimeout(this.#timer);
    await this.#unsubscribe?.().catch(() => {});
    if (this.#running.size > 0) {
      const drained = new Promise<void>((resolve) => this.#idle.push(resolve));
      const grace = new Promise<void>((resolve) => setTimeout(resolve, graceMs).unref());
      await Promise.race([drained, grace]);
    }
    // Not a cancel: each run stops where it is without ending, as a crash leaves it.
    this.#shutdown.abort(hostStoppingError(this.#role));
    await Promise.allSettled([...this.#running.values()]);
  }

  #schedulePoll(): void {
    if (this.#stopping) return;
    const base = this.#options.pollMs ?? 1000;
    // Jitter keeps a fleet's polls apart.
    this.#timer = setTimeout(
      () => {
        // Now and then, what a process of this machine that died left behind.
        if (++this.#polls % 15 === 0) void this.#freeDeadLocalLeases().catch(() => {});
        this.#wake();
        this.#schedulePoll();
      },
      base * (0.75 + Math.random() * 0.5),
    );
    this.#timer.unref();
  }

  #wake(): void {
    if (this.#stopping) return;
    if (this.#claiming) {
      this.#again = true;
      return;
    }
    void this.#claimWhileFree();
  }

  async #claimWhileFree(): Promise<void> {
    this.#claiming = true;
    try {
      do {
        this.#again = false;
        while (!this.#stopping && this.#running.size < (this.#options.concurrency ?? 1)) {
          const claim = await this.#options.store.queue.claim(leaseHolder(this.#role), {
            ttlMs: this.#options.ttlMs,
          });
          if (!claim) break;
          this.#execute(claim);
        }
      } while (this.#again && !this.#stopping);
    } catch (error) {
      this.#log("warn", `could not claim a run: ${toResonError(error).message}`);
    } finally {
      this.#claiming = false;
    }
  }

  #execute(claim: Parameters<typeof executeClaimed>[0]): void {
    const { request } = claim;
    const ids = { runId: request.id, sessionId: request.sessionId };
    this.#log("info", `claimed run (attempt ${request.attempts})`, { ...ids, epoch: claim.lease.epoch });
    this.#options.onClaim?.(request);
    const onEvent = this.#options.onEvent;
    const settings = {
      ...this.#options,
      role: this.#role,
      onEvent: (event: ResonEvent) => {
        this.#liveText.observe(event);
        onEvent?.(event);
      },
      warn: (message: string, runId: string) =>
        this.#log("warn", message, { runId, sessionId: request.sessionId }),
    };
    const running = executeClaimed(claim, settings, this.#shutdown.signal)
      .then((outcome) => {
        this.#options.onOutcome?.(outcome);
        this.#log("info", describe(outcome), ids);
      })
      .catch((error: unknown) =>
        this.#log("error", `run failed in the worker: ${toResonError(error).message}`, ids),
      )
      .finally(() => {
        this.#running.delete(request.id);
        if (this.#running.size === 0) for (const resolve of this.#idle.splice(0)) resolve();
        this.#wake();
      });
    this.#running.set(request.id, running);
  }

  #log(level: WorkerLogEntry["level"], message: string, extra: Record<string, unknown> = {}): void {
    this.#options.log?.({ level, message, workerId: this.id, ...extra });
  }
}

function describe(outcome: ExecutionOutcome): string {
  switch (outcome.kind) {
    case "finished":
      return `run ended ${outcome.status}`;
    case "released":
      return "run put back in the queue (the worker is stopping)";
    case "lost":
      return "run lost: another worker holds its lease now";
  }
}
