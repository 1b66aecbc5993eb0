// The store contract: plain records and repositories, no SQL outside src/store. Two
// implementations (sqlite/, postgres/) pass the same contract suite. Writes go through
// `apply`, one atomic batch of operations, so the loop can commit a whole step at once;
// reads go through one repository per kind of record.
import type { SerializedError } from "../core/errors.js";
import type { Usage } from "../core/usage.js";
import type { ExperienceRepository, MemoryRepository, MemoryWriteOp } from "./memory-types.js";

export type * from "./memory-types.js";

/** Milliseconds since the epoch, UTC. */
export type EpochMs = number;

export type SessionStatus = "active" | "completed" | "failed" | "aborted";
export type TraceStatus = "running" | "completed" | "failed" | "aborted";
export type TurnRole = "user" | "assistant" | "toolResult";
export type StepKind = "model_call" | "tool_call" | "compaction";
export type StepStatus = "pending" | "running" | "done" | "failed" | "interrupted";

/** What a session was started with; API keys are never stored. */
export interface SessionSettings {
  provider: string;
  model: string;
  baseUrl?: string;
  /** A manual compaction (/compact): turns before `upToSeq` are seen as this summary by later runs. */
  compaction?: { upToSeq: number; summary: string; count: number };
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
  | MemoryWriteOp;

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
  /** Applies every operation in one transaction: all or nothing. */
  apply(ops: readonly WriteOp[]): Promise<void>;
  /**
   * Finds a session or a trace by a unique id prefix (case-insensitive). No match: a
   * ResonError "not_found"; several: "ambiguous_id" listing them.
   */
  resolveId(prefix: string): Promise<IdMatch>;
  /**
   * Deletes traces (with steps, checkpoints and artifacts) that ended before `before`, and
   * sessions left empty.
   */
  gc(before: EpochMs): Promise<GcReport>;
  sizeBytes(): Promise<number>;
  close(): Promise<void>;
}
