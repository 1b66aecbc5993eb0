// The long-term memory contract (seed 004, memory-tools.md §7.4, §7.7): memory items with a
// text index and vectors, the embedding cache and index identity, and experiences with the
// runs they were shown in. Text is redacted by the store before it is stored or indexed.
import type { EpochMs } from "./types.js";

export type MemoryKind = "turn" | "note" | "summary";
/** Where a text came from; untrusted text may be recalled as evidence, never as an instruction. */
export type Provenance = "user" | "agent" | "tool" | "untrusted" | "system";

export interface MemoryItemRecord {
  /** A ULID. */
  id: string;
  projectKey: string;
  sessionId: string | null;
  traceId: string | null;
  kind: MemoryKind;
  /** The turn's role for a turn ("user", "assistant", "toolResult"); free for other kinds. */
  role: string | null;
  /** As stored: redacted, NUL characters replaced by U+FFFD. */
  text: string;
  provenance: Provenance;
  createdAt: EpochMs;
}

/** A match of a search: the item and how well it matched, 0..1 (1 is the best of this query). */
export interface MemoryMatch {
  item: MemoryItemRecord;
  score: number;
}

export interface MemorySearchOptions {
  projectKey: string;
  sessionId?: string;
  kinds?: readonly MemoryKind[];
  /** Only items created at or after this. */
  since?: EpochMs;
  limit: number;
}

export interface RecentOptions {
  projectKey: string;
  sessionId?: string;
  kinds?: readonly MemoryKind[];
  limit: number;
}

/** What a forget or an eviction removed. */
export interface ForgetReport {
  /** Items, with the summaries derived from them. */
  items: number;
  embeddings: number;
  /** Embedding-cache entries of the removed texts. */
  cacheEntries: number;
}

export type EmbeddingOwnerKind = "memory" | "experience";

/** The embedding model the vectors of a project (or of all projects) are made with. */
export interface IndexIdentity {
  model: string;
  dims: number;
}

/** Something without a vector for a model, and the text to embed for it. */
export interface EmbeddingOwner {
  ownerKind: EmbeddingOwnerKind;
  ownerId: string;
  /** null for a global experience. */
  projectKey: string | null;
  text: string;
}

export interface EmbeddingInput {
  ownerKind: EmbeddingOwnerKind;
  ownerId: string;
  /** The owner's project (null for a global experience); checked against the owner. */
  projectKey: string | null;
  model: string;
  vector: Float32Array;
  createdAt: EpochMs;
}

export interface MemoryRepository {
  get(id: string): Promise<MemoryItemRecord | undefined>;
  /** Appends items in one transaction (see the appendMemory operation). */
  appendItems(items: readonly MemoryItemInput[]): Promise<void>;
  /**
   * Full-text candidates, best first. Works for English and Chinese alike, including one- and
   * two-character queries (用户), which the trigram and bigram indexes cannot answer alone.
   */
  search(query: string, options: MemorySearchOptions): Promise<MemoryMatch[]>;
  /** Nearest items by cosine similarity (the score), exact or by the database's HNSW index. */
  vectorSearch(vector: Float32Array, model: string, options: MemorySearchOptions): Promise<MemoryMatch[]>;
  /** The newest items first. */
  getRecent(options: RecentOptions): Promise<MemoryItemRecord[]>;
  /**
   * Deletes items created before `cutoff` (of one project or all) with everything derived from
   * them: their text-index entries, vectors, cached embeddings of their text and the summaries
   * made from them.
   */
  evictBefore(cutoff: EpochMs, options?: { projectKey?: string }): Promise<ForgetReport>;
  /** Deletes these items with everything derived from them, as evictBefore does. */
  forget(ids: readonly string[]): Promise<ForgetReport>;
  /** The identity of a project's vectors, else the global one; undefined when none is set. */
  indexIdentity(projectKey?: string): Promise<IndexIdentity | undefined>;
  /** Sets it (projectKey omitted: the global one). Vectors of another model are kept but not searched. */
  setIndexIdentity(identity: IndexIdentity, options?: { projectKey?: string; at?: EpochMs }): Promise<void>;
  /**
   * Items and (not retired) experiences with no vector of `model`, oldest first: what to
   * (re-)embed. With a projectKey, that project's only (global experiences: omit it).
   */
  missingEmbeddings(
    model: string,
    options: { projectKey?: string; ownerKind?: EmbeddingOwnerKind; limit: number },
  ): Promise<EmbeddingOwner[]>;
  /** Stores vectors (one per owner and model; the same again replaces it). */
  putEmbeddings(embeddings: readonly EmbeddingInput[]): Promise<void>;
  /** Cached vectors by content hash (contentHash of the embedded text). */
  cachedEmbeddings(model: string, hashes: readonly string[]): Promise<Map<string, Float32Array>>;
  cacheEmbeddings(model: string, entries: readonly { hash: string; vector: Float32Array }[]): Promise<void>;
}

/** An item to append; `sourceIds` names the items a summary was made from (forgetting one forgets it). */
export type MemoryItemInput = MemoryItemRecord & { sourceIds?: readonly string[] };

export type ExperienceStatus = "candidate" | "active" | "retired";
export type Outcome = "success" | "failure";

export interface ExperienceEvidence {
  traceId: string;
  outcome: Outcome;
  note: string;
  at: EpochMs;
  /** The run had read untrusted content: its word backs no promotion. */
  untrusted?: true;
}

/** A learned rule (seed 000 §3, memory-tools.md §7.7): when `condition` holds, follow `rule`. */
export interface ExperienceRecord {
  id: string;
  /** null: global, offered in every project. */
  projectKey: string | null;
  /** e.g. "global", "agent:<id>", "domain:*.example.com". */
  scope: string;
  condition: string;
  rule: string;
  /**
   * Retrieval keys: what a future task needing the rule would mention (symptoms, error
   * messages, tools, file names), in the task's language and in English; indexed with the rule.
   */
  keys: string[];
  /** Machine-checkable conditions (tools, URL patterns, path globs), checked before any search. */
  conditionFilter: Record<string, unknown> | null;
  evidence: ExperienceEvidence[];
  confidence: number;
  /** Runs it was shown in. */
  usageCount: number;
  successCount: number;
  failureCount: number;
  /** Runs the rule matched but was withheld from (memory.holdout), by outcome. */
  holdoutSuccessCount: number;
  holdoutFailureCount: number;
  /** ExpeL's counter: ADD 2, AGREE and EDIT +1, REMOVE −1 (−3 when the list is full). */
  votes: number;
  provenance: Provenance;
  status: ExperienceStatus;
  createdAt: EpochMs;
  updatedAt: EpochMs;
  lastUsedAt: EpochMs | null;
}

/** An experience as read: with its Bayesian success rate (successRate). */
export type Experience = ExperienceRecord & { successRate: number };

export type ExperiencePatch = Partial<
  Pick<
    ExperienceRecord,
    | "scope"
    | "condition"
    | "rule"
    | "keys"
    | "conditionFilter"
    | "evidence"
    | "confidence"
    | "votes"
    | "status"
  >
>;

export interface ExperienceFilter {
  /** A project's experiences and the global ones (unless includeGlobal is false); null: global only. */
  projectKey?: string | null;
  includeGlobal?: boolean;
  status?: ExperienceStatus | readonly ExperienceStatus[];
  scope?: string;
  limit?: number;
}

export interface ExperienceMatch {
  experience: Experience;
  /**
   * Vector search: cosine similarity of the query to the experience's condition, rule and
   * keys. Text search: the part of the query's weight the experience covers, 0..1, the same
   * scale in a project of 5 rules and of 5,000 (lesson-text-score.ts: one word alone scores
   * at most 0.7).
   */
  score: number;
  /** Text search: the index's own rank (bm25 on SQLite, ts_rank on PostgreSQL), higher better. */
  rank?: number;
  /** Text search: the query's terms (as the index cuts them) the experience holds. */
  matched?: string[];
}

export interface ExperienceSearchOptions {
  projectKey: string;
  status?: ExperienceStatus | readonly ExperienceStatus[];
  limit: number;
}

export interface ExperienceRepository {
  get(id: string): Promise<Experience | undefined>;
  /** Most recently updated first. */
  list(filter?: ExperienceFilter): Promise<Experience[]>;
  insert(experience: ExperienceRecord): Promise<void>;
  /** Changing the condition drops its vectors, so it is embedded again. */
  update(id: string, patch: ExperiencePatch, at?: EpochMs): Promise<void>;
  /** Adds `delta` to the votes (ExpeL's AGREE +1, REMOVE −1 or −3). */
  vote(id: string, delta: number, at?: EpochMs): Promise<void>;
  retire(id: string, at?: EpochMs): Promise<void>;
  /** Notes that the experience was shown in a run; the first time per run counts as a use. */
  recordUse(experienceId: string, traceId: string, at?: EpochMs): Promise<void>;
  /**
   * Ranked lexical search over condition, rule and keys (stop words out, English stemmed,
   * Chinese in words), of a project's experiences and the global ones: the best `limit` by the
   * index's rank, ordered by their normalised score. Indexes first what is not indexed yet.
   */
  search(query: string, options: ExperienceSearchOptions): Promise<ExperienceMatch[]>;
  /** Indexes experiences whose text changed since (or that predate the index); the count. */
  reindex(limit?: number): Promise<number>;
  /**
   * Counts a run's outcome for exactly the experiences shown in it, once per run: the number
   * of experiences updated (0 when the run showed none or was already counted).
   */
  recordOutcome(traceId: string, outcome: Outcome, at?: EpochMs): Promise<number>;
  /**
   * The experiences shown in a run (and, withheld, those it matched but was not shown), with
   * the outcome counted for each (null: not yet).
   */
  usesIn(
    traceId: string,
  ): Promise<{ experienceId: string; shownAt: EpochMs; outcome: Outcome | null; withheld: boolean }[]>;
  /** Nearest experiences of a project and the global ones by the vector of condition, rule and keys. */
  vectorSearch(
    vector: Float32Array,
    model: string,
    options: ExperienceSearchOptions,
  ): Promise<ExperienceMatch[]>;
}

/** Writes of memory and experiences that can join any batch of Store.apply. */
export type MemoryWriteOp =
  | { op: "appendMemory"; item: MemoryItemInput }
  | { op: "putEmbedding"; embedding: EmbeddingInput }
  | { op: "cacheEmbedding"; model: string; hash: string; vector: Float32Array; at: EpochMs }
  | { op: "setIndexIdentity"; projectKey: string | null; identity: IndexIdentity; at: EpochMs }
  | { op: "insertExperience"; experience: ExperienceRecord }
  | { op: "updateExperience"; id: string; patch: ExperiencePatch; at: EpochMs }
  | { op: "voteExperience"; id: string; delta: number; at: EpochMs }
  /** withheld: the run matched the rule but was not shown it (holdout); it counts apart. */
  | { op: "recordExperienceUse"; experienceId: string; traceId: string; at: EpochMs; withheld?: boolean }
  | { op: "recordOutcome"; traceId: string; outcome: Outcome; at: EpochMs };
