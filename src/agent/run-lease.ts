// The lease a persisted run holds while this process executes it: taken when the run starts or
// resumes, renewed by a heartbeat every third of its TTL, let go at the end. Every write of the
// run goes through `apply`, fenced by the lease's epoch; when the lease is lost (a renewal or a
// fenced write refused) `signal` aborts the run at once and nothing more is written.
import { ResonError, toResonError } from "../core/errors.js";
import { humanDuration } from "../core/human-duration.js";
import {
  type LeaseFence,
  leaseHolder,
  leaseLostError,
  type RunLease,
  type Store,
  type WriteOp,
} from "../store/index.js";

export interface LeaseSettings {
  /** What holds the lease, as others are told: "reson run", "reson resume", "worker". */
  role: string;
  ttlMs: number;
  /** Take over a lease that expired although its holder is still alive (stopped, stuck). */
  force?: boolean;
}

export class HeldLease {
  readonly fence: LeaseFence;
  readonly #store: Store;
  readonly #ttlMs: number;
  readonly #controller = new AbortController();
  readonly #timer: NodeJS.Timeout;
  /** When the last renewal succeeded (this process's clock): past it plus the TTL, it is lost. */
  #renewedAt = Date.now();
  #renewing = false;
  #released = false;

  private constructor(store: Store, lease: RunLease, ttlMs: number) {
    this.#store = store;
    this.#ttlMs = ttlMs;
    this.fence = { traceId: lease.traceId, epoch: lease.epoch };
    this.#timer = setInterval(() => void this.#heartbeat(), Math.max(1, Math.floor(ttlMs / 3)));
    // The heartbeat never keeps a process alive on its own.
    this.#timer.unref();
  }

  /** Takes the run's lease (or fails with "run_leased", naming who holds it and since when). */
  static async acquire(store: Store, traceId: string, settings: LeaseSettings): Promise<HeldLease> {
    const lease = await store.leases.acquire(traceId, leaseHolder(settings.role), {
      ttlMs: settings.ttlMs,
      ...(settings.force ? { force: true } : {}),
    });
    return new HeldLease(store, lease, settings.ttlMs);
  }

  /** Holds a lease this process took by other means (a worker's claim of a queued run). */
  static adopt(store: Store, lease: RunLease, ttlMs: number): HeldLease {
    return new HeldLease(store, lease, ttlMs);
  }

  /** Aborts, with the "lease_lost" error as its reason, when the lease is lost. */
  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  /** The error the lease was lost with, once it is. */
  get lost(): ResonError | undefined {
    const reason: unknown = this.#controller.signal.reason;
    return this.#controller.signal.aborted && reason instanceof ResonError ? reason : undefined;
  }

  /** Writes a batch of the run, fenced by the lease; a refusal means the lease is lost. */
  async apply(ops: readonly WriteOp[]): Promise<void> {
    if (this.lost) throw this.lost;
    try {
      await this.#store.apply(ops, { fence: this.fence });
    } catch (error) {
      if (error instanceof ResonError && error.code === "lease_lost") this.#lose(error);
      throw error;
    }
  }

  /** Lets the lease go (once); the run's writes end here. */
  async release(): Promise<void> {
    if (this.#released) return;
    this.#released = true;
    clearInterval(this.#timer);
    if (this.lost) return;
    // A lease that cannot be released expires by itself within its TTL.
    await this.#store.leases.release(this.fence).catch(() => false);
  }

  #lose(error: ResonError): void {
    clearInterval(this.#timer);
    if (!this.#controller.signal.aborted) this.#controller.abort(error);
  }

  async #heartbeat(): Promise<void> {
    if (this.#renewing || this.#released || this.lost) return;
    this.#renewing = true;
    try {
      const renewed = await this.#store.leases.renew(this.fence, this.#ttlMs);
      // Let go meanwhile: the run is over, nothing is lost.
      if (this.#released) return;
      if (renewed) {
        this.#renewedAt = Date.now();
        return;
      }
      const current = await this.#store.leases.get(this.fence.traceId).catch(() => undefined);
      this.#lose(leaseLostError(this.fence, current));
    } catch (error) {
      // The store did not answer: the lease holds until its TTL runs out unrenewed.
      if (Date.now() - this.#renewedAt < this.#ttlMs) return;
      this.#lose(
        new ResonError(
          "lease_lost",
          `This process could not renew the lease of run ${this.fence.traceId} for ${humanDuration(this.#ttlMs)} (${toResonError(error).message}) and stopped without writing anything more.`,
          {
            hint: `Once the store answers again, \`reson resume ${this.fence.traceId}\` continues the run.`,
            details: { traceId: this.fence.traceId, epoch: this.fence.epoch },
          },
        ),
      );
    } finally {
      this.#renewing = false;
    }
  }
}
