// The store contract: plain records and repositories, no SQL outside src/store. Two
// implementations (sqlite/, postgres/) pass the same contract suite. Writes go through
// `apply`, one atomic batch of operations, so the loop can commit a whole step at once;
// reads go through one repository per kind of record.
import type { SerializedError } from "../core/errors.js";
import type { Usage } from "../core/usage.js";
import type { ChannelRepository } from "./channel-types.js";
import type { ExperienceRepository, MemoryRepository, MemoryWriteOp } from "./memory-types.js";
import type {
  IdempotencyRepository,
  RunEventRepository,
  RunPromptRepository,
  RunQueueRepository,
  RunWriteOp,
} from "./service-types.js";
import type { WorkspaceRepository } from "./workspace-types.js";

export type * from "./channel-types.js";
export type * from "./memory-types.js";
export type * from "./service-types.js";
export type * from "./workspace-types.js";

/** Milliseconds since the epoch, UTC. */
export type EpochMs = number;

export type SessionStatus = "active" | "completed" | "failed" | "aborted";
export type TraceStatus = "running" | "completed" | "failed" | "aborted";
export type TurnRole = "user" | "assistant" | "toolResult";
/**
 * "learning": what learning from the run did, recorded once per ending of the run; "trust": the
 * run became untrusted (it read content from outside the user's files, or inherited that).
 */
export type StepKind = "model_call" | "tool_call" | "compaction" | "learning" | "trust";
export type StepStatus = "pending" | "running" | "done" | "failed" | "interrupted";

/** What a session was started with; API keys are never stored. */
export interface SessionSettings {
  provider: string;
  model: string;
  baseUrl?: string;
  /** A manual compaction (/compact): turns before `upToSeq` are seen as this summary by later runs. */
  compaction?: { upToSeq: number; summary: string; count: number };
  /** Turns taken out of the history by rewinds (reson rewind): later runs do not see them. */
  rewound?: RewoundTurns[];
  /**
   * Allow rules the user granted "for this session" (allow_session over HTTP): every later run
   * of the session starts with them.
   */
  allowRules?: string[];
}

/** Turns of a session a rewind took out of its history: seq in [fromSeq, toSeq). */
export interface RewoundTurns {
  fromSeq: number;
  toSeq: number;
  rewindId: string;
}

export interface SessionRecord {
  id: string;
  /** sha256 of the workspace's real path: project-scoped data is keyed by it. */
  projectKey: string;
  workspace: string;
  title: string;
  status: SessionStatus;
  settings: SessionSettings;
  usage: Usage;
  /** The newest run of the session. */
  lastTraceId: string | null;
  createdAt: EpochMs;
  updatedAt: EpochMs;
}

/**
 * Envelope facts of a turn (seed 004, memory-tools.md §7.3): kept apart from the raw content
 * and rendered by a pure function, so an old turn renders to the same bytes every time.
 */
export interface MessageContext {
  receivedAt: EpochMs;
  channel: string;
  chatType: "direct" | "group" | "channel";
  chatId?: string;
  messageId?: string;
  senderId?: string;
  senderName?: string;
  roleLabel?: string;
  /** A chat channel's thread or topic within the chat. */
  threadId?: string;
  senderUsername?: string;
  /** The message this one answers. */
  replyToMessageId?: string;
  /** In a group: whether the message named the agent. */
  mentioned?: boolean;
}

export interface TurnRecord {
  id: string;
  sessionId: string;
  /** 0, 1, 2… within the session; unique, so a turn is never stored twice. */
  seq: number;
  role: TurnRole;
  /** The raw message as JSON (a pi-ai Message without any rendered envelope). */
  content: unknown;
  /** Stored as metadata.message_context; null for assistant and tool turns. */
  envelope: MessageContext | null;
  traceId: string | null;
  /** The loop step that produced it (0 for the task). */
  step: number | null;
  createdAt: EpochMs;
}

export interface TraceRecord {
  id: string;
  sessionId: string;
  /** Set for sub-agent runs. */
  parentTraceId: string | null;
  task: string;
  preset: string | null;
  provider: string;
  model: string;
  baseUrl: string | null;
  status: TraceStatus;
  usage: Usage;
  /** Model calls made so far. */
  steps: number;
  error: SerializedError | null;
  startedAt: EpochMs;
  endedAt: EpochMs | null;
  updatedAt: EpochMs;
}

/**
 * A step of a trace, in a tree through parentId alone (seed 000 §11): a model call is a
 * root; its tool calls are its children; a retry or a result hangs under what it answers.
 */
export interface StepRecord {
  id: string;
  traceId: string;
  parentId: string | null;
  /** Order within the trace. */
  seq: number;
  kind: StepKind;
  status: StepStatus;
  /** JSON: for a model call the assistant message and usage; for a tool call its name, arguments, result. */
  data: unknown;
  createdAt: EpochMs;
  updatedAt: EpochMs;
}

/** The loop's state after its last committed step, enough to resume (JSON). */
export interface CheckpointRecord {
  traceId: string;
  step: number;
  state: unknown;
  updatedAt: EpochMs;
}

/**
 * A tool output too large for the context, kept whole so the model can page through it
 * (read_artifact); the result in history names it.
 */
export interface ArtifactRecord {
  id: string;
  traceId: string;
  toolCallId: string;
  /** The tool that produced it. */
  name: string;
  content: string;
  /** content.length. */
  chars: number;
  createdAt: EpochMs;
}

/** Lines of an artifact, as ArtifactRepository.read gives them. */
export interface ArtifactPage {
  /** Lines offset..min(offset+limit-1, totalLines) joined by "\n"; "" past the end. */
  text: string;
  /** Lines of the whole content ("\n"-separated; a final newline ends the last line). */
  totalLines: number;
}

export interface ToolStatsRecord {
  projectKey: string;
  tool: string;
  calls: number;
  successes: number;
  failures: number;
  /**
   * Failures per error code (ResonError codes such as "tool_failed", "invalid_arguments");
   * one recorded without a code counts under UNKNOWN_ERROR_CODE ("unknown"). Failures recorded before schema 3
   * have no code, so the counts may add up to less than `failures`.
   */
  failuresByCode: Record<string, number>;
  totalDurationMs: number;
  /**
   * Median and 95th percentile (nearest rank) of the last TOOL_DURATION_SAMPLES durations:
   * exact over that window, so they follow the tool's recent behaviour. Null when no sample
   * is kept (only calls recorded before schema 3).
   */
  p50Ms: number | null;
  p95Ms: number | null;
  lastCallAt: EpochMs | null;
}

/** One write; a batch of them is applied atomically by Store.apply. */
export type WriteOp =
  | { op: "insertSession"; session: SessionRecord }
  | {
      op: "updateSession";
      id: string;
      patch: Partial<Omit<SessionRecord, "id" | "projectKey" | "createdAt">>;
    }
  | { op: "appendTurn"; turn: TurnRecord }
  | { op: "insertTrace"; trace: TraceRecord }
  | { op: "updateTrace"; id: string; patch: Partial<Omit<TraceRecord, "id" | "sessionId" | "startedAt">> }
  | { op: "insertStep"; step: StepRecord }
  | { op: "updateStep"; id: string; patch: Partial<Pick<StepRecord, "status" | "data" | "updatedAt">> }
  | { op: "putCheckpoint"; checkpoint: CheckpointRecord }
  /** Stores an artifact; the same id again replaces it. */
  | { op: "putArtifact"; artifact: ArtifactRecord }
  | {
      op: "recordToolCall";
      projectKey: string;
      tool: string;
      ok: boolean;
      durationMs: number;
      at: EpochMs;
      /** Why a failed call failed (its error's code); ignored when ok. */
      errorCode?: string;
    }
  | MemoryWriteOp
  | RunWriteOp;

/**
 * Who holds a run's lease: a process on a machine, and what it is. `id` is unique per holder
 * (host, pid and a random part), so two holders in one process are told apart.
 */
export interface LeaseHolder {
  id: string;
  host: string;
  pid: number;
  /** What holds it, in words: "reson run", "reson resume", "worker". */
  role: string;
}

/**
 * "held": its holder renewed it in time; "expired": the holder stopped renewing (it died, is
 * stopped or cut off) and another may take the run; "released": the holder let it go.
 */
export type LeaseState = "held" | "expired" | "released";

/**
 * A run's lease. One per trace; the row stays after a release so that `epoch` only ever grows:
 * every acquire bumps it, and every write of the run is fenced by the epoch it acquired.
 */
export interface RunLease {
  traceId: string;
  epoch: number;
  holder: LeaseHolder;
  /** Times by the database's clock. */
  acquiredAt: EpochMs;
  renewedAt: EpochMs;
  expiresAt: EpochMs;
  releasedAt: EpochMs | null;
  /** As the database's clock saw it when the lease was read. */
  state: LeaseState;
}

/** What a write of a run carries: the run and the epoch its writer acquired. */
export interface LeaseFence {
  traceId: string;
  epoch: number;
}

export interface AcquireOptions {
  /** How long the lease lasts without a renewal. */
  ttlMs: number;
  /**
   * Take over a lease that expired although its holder is still alive on this host (a stopped
   * or stuck process). A lease that has not expired is never taken over.
   */
  force?: boolean;
}

export interface LeaseRepository {
  /** The run's lease as stored (held or not); undefined when it never had one. */
  get(traceId: string): Promise<RunLease | undefined>;
  /** The leases held now (not expired, not released). */
  listHeld(): Promise<RunLease[]>;
  /**
   * Takes the run's lease, with a new epoch: when no one holds it, when it expired (its holder
   * alive on this host only with `force`), or when its holder was a process on this host that
   * is gone (a crash is not waited out). Otherwise a ResonError "run_leased" naming the holder
   * and since when. Of several acquiring at once, exactly one succeeds.
   */
  acquire(traceId: string, holder: LeaseHolder, options: AcquireOptions): Promise<RunLease>;
  /** Extends the lease by ttlMs; undefined when the fence's epoch is no longer current (lost). */
  renew(fence: LeaseFence, ttlMs: number): Promise<RunLease | undefined>;
  /** Lets the lease go; false when it was no longer this epoch's. */
  release(fence: LeaseFence): Promise<boolean>;
}

export interface ApplyOptions {
  /**
   * The batch is a run's: it is written only while the run's lease is still at this epoch
   * (checked in the same transaction); else nothing is written and it fails with "lease_lost".
   */
  fence?: LeaseFence;
}

export interface ListOptions {
  limit?: number;
}

export interface SessionRepository {
  get(id: string): Promise<SessionRecord | undefined>;
  /** The newest sessions first; optionally of one project. */
  list(options?: ListOptions & { projectKey?: string }): Promise<SessionRecord[]>;
  latest(projectKey: string): Promise<SessionRecord | undefined>;
}

export interface TurnRepository {
  /** A session's turns in seq order. */
  list(sessionId: string, options?: { afterSeq?: number; limit?: number }): Promise<TurnRecord[]>;
  /** The next free seq of a session (0 when it has none). */
  nextSeq(sessionId: string): Promise<number>;
}

export interface TraceRepository {
  get(id: string): Promise<TraceRecord | undefined>;
  /** A session's traces, oldest first. */
  listBySession(sessionId: string): Promise<TraceRecord[]>;
  children(parentTraceId: string): Promise<TraceRecord[]>;
}

export interface StepRepository {
  /** A trace's steps in seq order. */
  list(traceId: string): Promise<StepRecord[]>;
}

export interface CheckpointRepository {
  get(traceId: string): Promise<CheckpointRecord | undefined>;
}

export interface ArtifactRepository {
  get(id: string): Promise<ArtifactRecord | undefined>;
  /** Lines `offset` (1-based) onwards, at most `limit`; undefined for an unknown id. */
  read(id: string, offset: number, limit: number): Promise<ArtifactPage | undefined>;
}

export interface ToolStatsRepository {
  list(projectKey: string): Promise<ToolStatsRecord[]>;
}

/** What an id prefix names: exactly one session or trace, or an error listing the candidates. */
export type IdMatch = { kind: "session"; session: SessionRecord } | { kind: "trace"; trace: TraceRecord };

export interface GcReport {
  sessions: number;
  traces: number;
  steps: number;
  checkpoints: number;
  artifacts: number;
  turns: number;
  /** Settled chat messages (channel_inbound), kept at least a day for the platforms' redeliveries. */
  channelMessages: number;
}

/** What the database underneath can do beyond the contract. */
export interface StoreFeatures {
  /** The database has vectors itself: pgvector on PostgreSQL, sqlite-vec on SQLite. */
  vector: boolean;
  /**
   * How vector search runs: pgvector's HNSW index (cosine; one per embedding model, as
   * `halfvec` above 2,000 dimensions; above 4,000 pgvector compares exactly, above 16,000 the
   * store does, in process), sqlite-vec's exact distance, or an exact index in this process
   * (vectors kept as bytes in the database).
   */
  vectorSearch: "pgvector-hnsw" | "sqlite-vec" | "in-process";
}

export interface Store {
  readonly kind: "sqlite" | "postgres";
  /** Where the data lives (a file path or a URL without its password). */
  readonly location: string;
  readonly features?: StoreFeatures;
  readonly sessions: SessionRepository;
  readonly turns: TurnRepository;
  readonly traces: TraceRepository;
  readonly steps: StepRepository;
  readonly checkpoints: CheckpointRepository;
  readonly artifacts: ArtifactRepository;
  readonly toolStats: ToolStatsRepository;
  /** Long-term memory: items, their text index and vectors, the embedding cache. */
  readonly memory: MemoryRepository;
  readonly experiences: ExperienceRepository;
  /** Runs' leases: who executes a run now, and the epoch that fences its writes. */
  readonly leases: LeaseRepository;
  /** Each run's numbered, committed events. */
  readonly events: RunEventRepository;
  /** Runs waiting for a worker, and held by one. */
  readonly queue: RunQueueRepository;
  /** Approvals and questions runs wait on. */
  readonly prompts: RunPromptRepository;
  /** Answers of POSTs repeated with an idempotency key. */
  readonly idempotency: IdempotencyRepository;
  /** Registered workspaces: named folders reson works in. */
  readonly workspaces: WorkspaceRepository;
  /** Chat channels: inbound messages to their answers, chat sessions, pairings, channel state. */
  readonly channels: ChannelRepository;
  /** Applies every operation in one transaction: all or nothing. */
  apply(ops: readonly WriteOp[], options?: ApplyOptions): Promise<void>;
  /**
   * Finds a session or a trace by a unique id prefix (case-insensitive). No match: a
   * ResonError "not_found"; several: "ambiguous_id" listing them.
   */
  resolveId(prefix: string): Promise<IdMatch>;
  /**
   * Deletes traces (with steps, checkpoints, artifacts, events and prompts) that ended before
   * `before`, sessions left empty, queue requests done before it, idempotency keys older, and
   * chat messages settled (answered or ignored, no run of theirs waiting or working) before
   * `before` and more than CHANNEL_DEDUPE_WINDOW_MS ago: their rows make redeliveries no-ops.
   */
  gc(before: EpochMs): Promise<GcReport>;
  /** What gc(before) would delete now, deleting nothing (`reson gc --dry-run`, and its question). */
  gcPreview(before: EpochMs): Promise<GcReport>;
  sizeBytes(): Promise<number>;
  close(options?: CloseOptions): Promise<void>;
}

export interface CloseOptions {
  /**
   * The process exits right after: skip what only tidies files. SQLite then leaves its
   * write-ahead log for the next open to read instead of folding it into the database (a
   * checkpoint, three fsyncs and two unlinks on every exit); committed data is safe either way.
   */
  processExiting?: boolean;
}
