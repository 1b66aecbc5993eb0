// The store's contract for running reson as a service: the numbered events of each run (what an
// SSE client reads and rejoins from), the queue of runs workers take, the prompts (approvals,
// questions) a run waits on, and the answers to POSTs repeated with an idempotency key.
import type { SerializedError } from "../core/errors.js";
import type { EpochMs, LeaseFence, LeaseHolder, RunLease, WriteOp } from "./types.js";

/** One committed event of a run; `seq` is 1, 2, 3… per run, without gaps, never reused. */
export interface RunEventRecord {
  traceId: string;
  seq: number;
  type: string;
  /** The loop step it belongs to. */
  step: number;
  ts: EpochMs;
  data: unknown;
}

export interface RunEventInput {
  seq: number;
  type: string;
  step: number;
  ts: EpochMs;
  data: object;
}

/** Stops a subscription (and the listening connection with the last one). */
export type Unsubscribe = () => Promise<void>;

export interface SubscribeOptions {
  /**
   * Called when wake-ups may have been lost (PostgreSQL's listening connection dropped and is
   * back): read again, from its last seq, every run the subscriber follows.
   */
  onGap?: () => void;
}

/**
 * What a run's step in flight adds to its live text (never stored): relayed by the process that
 * executes the run to the processes that stream it, in the order it happened.
 */
export interface LiveTextDelta {
  traceId: string;
  step: number;
  /** The step starts here: whatever live text came before is gone. */
  stepStart?: true;
  /** Text and thinking added since the last delta (either may be empty). */
  text: string;
  thinking: string;
  /** The run ended: no more live text comes from it. */
  runEnd?: true;
}

export interface RunEventRepository {
  /** A run's events after `after` (default 0), ascending by seq, at most `limit`. */
  list(traceId: string, options?: { after?: number; limit?: number }): Promise<RunEventRecord[]>;
  /** The run's last stored seq; 0 when it has none. */
  lastSeq(traceId: string): Promise<number>;
  /**
   * Told (run, its last seq) after every commit that appended events. PostgreSQL: from any
   * process on the database, through LISTEN/NOTIFY, within milliseconds. SQLite: only appends
   * made by this process; a reader following another process's runs polls `list`.
   * A wake-up says "read from your last seq", nothing more: it may come twice or late.
   */
  subscribe(
    listener: (traceId: string, lastSeq: number) => void,
    options?: SubscribeOptions,
  ): Promise<Unsubscribe>;
  /**
   * Sends the live text of a run this process executes to the processes that follow live text
   * (PostgreSQL: NOTIFY on a channel of its own, cut into notices NOTIFY accepts; nothing waits
   * for it and nothing keeps it: a delta nobody hears is gone). SQLite: nothing leaves the
   * process; resolves at once.
   */
  relayLive(delta: LiveTextDelta): Promise<void>;
  /** Told of every delta other processes relay (never of this store's own), in their order. */
  subscribeLive(listener: (delta: LiveTextDelta) => void): Promise<Unsubscribe>;
}

export type RunRequestStatus = "queued" | "running" | "completed" | "failed" | "cancelled";

/** A run waiting for a worker, held by one, or done. */
export interface RunRequestRecord {
  /** The run's id: the trace id the run has or will have. */
  id: string;
  sessionId: string;
  task: string;
  /** How to run it (settings, limits, preset…); the store does not look inside. */
  spec: unknown;
  status: RunRequestStatus;
  /** Claims so far (a graceful release gives its attempt back). */
  attempts: number;
  maxAttempts: number;
  /** Not claimed before this time (database clock): a retry's backoff. */
  notBefore: EpochMs;
  lastError: SerializedError | null;
  /** Cancellation asked while it runs; its worker sees it at its next check and stops. */
  cancelRequested: boolean;
  idempotencyKey: string | null;
  createdAt: EpochMs;
  updatedAt: EpochMs;
  /** The holder id of the last claim, for display. */
  worker: string | null;
  /** The lease epoch of the last claim: the request's own fence. */
  leaseEpoch: number | null;
}

export interface EnqueueInput {
  id: string;
  sessionId: string;
  task: string;
  spec: unknown;
  /** Claims allowed before a run whose workers keep dying is failed (default 3). */
  maxAttempts?: number;
  idempotencyKey?: string;
}

export interface QueueDepth {
  queued: number;
  running: number;
  /** How long the oldest queued request has waited (database clock); null when none waits. */
  oldestQueuedAgeMs: number | null;
}

export type QueueChange = { kind: "queued" } | { kind: "cancel_requested"; runId: string };

export type FinishStatus = "completed" | "failed" | "cancelled";

export interface LastWrites {
  /**
   * The run's last writes (its trace's end, its final events), committed with the change of the
   * request in one transaction under the same fence: a crash cannot leave one without the other.
   */
  ops?: readonly WriteOp[];
}

export interface RunQueueRepository {
  /**
   * Queues a run. With an idempotency key already used, the first request comes back with
   * `created: false` (of racing enqueues exactly one creates). An id already queued without
   * a key is "store_conflict".
   */
  enqueue(request: EnqueueInput): Promise<{ request: RunRequestRecord; created: boolean }>;
  /**
   * Takes one run and its lease (a new epoch) in one transaction, or undefined when none is
   * ready: the oldest queued one whose backoff is over and whose session has nothing earlier
   * queued or running, or a running one whose lease expired (its worker died). A reclaim past
   * maxAttempts fails that request ("worker_lost") and looks further.
   */
  claim(
    holder: LeaseHolder,
    options: { ttlMs: number },
  ): Promise<{ request: RunRequestRecord; lease: RunLease } | undefined>;
  /**
   * Ends the run and releases its lease: the run's last write. Fenced: a worker that lost the
   * lease gets "lease_lost" and nothing changes.
   */
  finish(
    fence: LeaseFence,
    status: FinishStatus,
    error?: SerializedError | null,
    options?: LastWrites,
  ): Promise<RunRequestRecord>;
  /**
   * Puts the run back in the queue, claimable after `delayMs` (database clock), and releases
   * the lease; fenced. With `error` null it is a graceful release (a worker shutting down
   * after a checkpoint): the attempt is given back. A run whose cancellation was asked is
   * cancelled instead.
   */
  retryLater(
    fence: LeaseFence,
    error: SerializedError | null,
    delayMs: number,
    options?: LastWrites,
  ): Promise<RunRequestRecord>;
  /**
   * Queued: cancelled at once. Running: marked `cancelRequested` for its worker. Done: as it
   * is. Undefined for an unknown id.
   */
  requestCancel(id: string): Promise<RunRequestRecord | undefined>;
  get(id: string): Promise<RunRequestRecord | undefined>;
  /** A session's requests, oldest first. */
  listBySession(sessionId: string): Promise<RunRequestRecord[]>;
  /** Requests oldest first, optionally of one status. */
  list(options?: { status?: RunRequestStatus; limit?: number }): Promise<RunRequestRecord[]>;
  depth(): Promise<QueueDepth>;
  /**
   * Told after every enqueue and every request put back ("queued": a waiting worker may claim),
   * and when a run is asked to stop ("cancel_requested": its worker may stop now). PostgreSQL:
   * from any process; SQLite: from this one (workers elsewhere poll).
   */
  subscribe(listener: (change: QueueChange) => void, options?: SubscribeOptions): Promise<Unsubscribe>;
}

export type RunPromptKind = "permission" | "question";
export type RunPromptStatus = "pending" | "answered" | "expired";

export interface RunPromptRecord {
  id: string;
  traceId: string;
  kind: RunPromptKind;
  payload: unknown;
  /** "expired" also for a pending prompt whose time ran out (database clock). */
  status: RunPromptStatus;
  answer: unknown;
  createdAt: EpochMs;
  answeredAt: EpochMs | null;
  expiresAt: EpochMs | null;
  /** When the run acted on the answer (or on the time running out); null until then. */
  usedAt: EpochMs | null;
}

export interface RunPromptInput {
  id: string;
  traceId: string;
  kind: RunPromptKind;
  payload: object;
  /** Unanswered after this long (database clock) it expires; null: never. */
  timeoutMs: number | null;
}

export type AnswerOutcome = "answered" | "already_answered" | "expired" | "not_found";

export interface RunPromptRepository {
  /** Opens a prompt of a run, fenced by its lease (or use the `openPrompt` op in a batch). */
  open(prompt: RunPromptInput, options?: { fence?: LeaseFence }): Promise<RunPromptRecord>;
  /** Of racing answers exactly one is "answered"; the rest see "already_answered". */
  answer(id: string, answer: unknown): Promise<AnswerOutcome>;
  get(id: string): Promise<RunPromptRecord | undefined>;
  /** Prompts still waiting (not answered, not expired), oldest first; of one run if given. */
  listPending(traceId?: string): Promise<RunPromptRecord[]>;
  /** Every prompt of a run, whatever its status, oldest first. */
  listOfRun(traceId: string): Promise<RunPromptRecord[]>;
  /**
   * Marks that the run acted on the prompt's answer (or on its time running out), so no later
   * call, in this process or after a restart, takes that answer as its own; of racing marks
   * exactly one is true.
   */
  use(id: string): Promise<boolean>;
  /** Expires a pending prompt now; false when it was no longer pending. */
  expire(id: string): Promise<boolean>;
  /**
   * Told (run, prompt) when a prompt is answered or expired: PostgreSQL from any process, SQLite
   * from this one (a waiting run elsewhere polls `get`).
   */
  subscribe(
    listener: (traceId: string, promptId: string) => void,
    options?: SubscribeOptions,
  ): Promise<Unsubscribe>;
}

export interface RememberOptions {
  /**
   * A first request that has not answered after this long is taken to have died, and the key
   * is taken over (default 60 s).
   */
  staleMs?: number;
}

export interface IdempotencyRepository {
  /**
   * The answer to a POST with an idempotency key: the first request under (scope, key) runs
   * `make` and its response is kept; a repeat with the same request hash gets that response
   * (`replayed: true`) without running `make`. A different request hash, or a repeat while the
   * first still runs, is "idempotency_conflict". `make` failing frees the key.
   */
  remember<T extends object>(
    scope: string,
    key: string,
    requestHash: string,
    make: () => Promise<T>,
    options?: RememberOptions,
  ): Promise<{ response: T; replayed: boolean }>;
}

/** Writes of a run that commit with its other writes (fenced in the same batch). */
export type RunWriteOp =
  /** Appends events; the first seq must be the stored last + 1, the rest contiguous ("store_conflict"). */
  | { op: "appendEvents"; traceId: string; events: RunEventInput[] }
  | { op: "openPrompt"; prompt: RunPromptInput };
