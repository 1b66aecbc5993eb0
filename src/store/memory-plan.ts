// The statements of the memory and experience write operations, in SQL both dialects accept
// (the dialect adds its index column). Every text is redacted before it reaches a statement,
// so a secret is never stored, indexed or hashed; every write of vectors bumps its scope's
// generation, which is how an in-process index of the scope knows it is current.
import { ResonError } from "../core/errors.js";
import { contentHash, vectorToBytes } from "../core/vector-bytes.js";
import type { Statement } from "./driver.js";
import type { MemoryDialect } from "./memory-dialect.js";
import { EXPERIENCES, MEMORY_ITEMS, patchToColumns, type SqlValue, toRow } from "./records.js";
import { searchTerms } from "./search-terms.js";
import type {
  EmbeddingInput,
  ExperiencePatch,
  ExperienceRecord,
  MemoryItemInput,
  MemoryKind,
  MemoryWriteOp,
  Outcome,
  Provenance,
} from "./types.js";

export type Redact = (text: string) => string;

export interface PlanContext {
  redact: Redact;
  dialect: MemoryDialect;
}

export const MEMORY_KINDS: readonly MemoryKind[] = ["turn", "note", "summary"];
export const PROVENANCES: readonly Provenance[] = ["user", "agent", "tool", "untrusted", "system"];
const STATUSES = ["candidate", "active", "retired"];
const OUTCOMES: readonly Outcome[] = ["success", "failure"];

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/**
 * A text as stored: redacted, then NUL (which PostgreSQL's text cannot hold) and lone
 * surrogates (which UTF-8 cannot) replaced by U+FFFD, so both backends store the same text
 * and its hash is the hash of what is stored.
 */
export function storedText(text: string, redact: Redact): string {
  return redact(text).replaceAll("\u0000", "\uFFFD").replace(LONE_SURROGATE, "\uFFFD");
}

/** Every string inside a JSON value, stored as storedText. */
function storedJson<T>(value: T, redact: Redact): T {
  if (typeof value === "string") return storedText(value, redact) as T;
  if (Array.isArray(value)) return value.map((v) => storedJson(v, redact)) as T;
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, storedJson(v, redact)])) as T;
  }
  return value;
}

function invalid(what: string, why: string): ResonError {
  return new ResonError("internal_error", `${what}: ${why}`, {
    hint: "This is a bug in the caller of the store: the record does not match its type.",
  });
}

function oneOf<T extends string>(value: unknown, allowed: readonly T[], what: string): void {
  if (!allowed.includes(value as T)) {
    throw invalid(what, `must be one of ${allowed.join(", ")}, got ${String(value)}`);
  }
}

function stringOf(value: unknown, what: string): string {
  if (typeof value !== "string") throw invalid(what, `must be a string, got ${typeof value}`);
  return value;
}

function checkVector(vector: unknown, what: string): Float32Array {
  if (!(vector instanceof Float32Array) || vector.length === 0) {
    throw invalid(what, "must be a non-empty Float32Array");
  }
  for (const value of vector) if (!Number.isFinite(value)) throw invalid(what, "holds a non-finite number");
  return vector;
}

function appendMemory(item: MemoryItemInput, { redact, dialect }: PlanContext): Statement[] {
  oneOf(item.kind, MEMORY_KINDS, "memory_items.kind");
  oneOf(item.provenance, PROVENANCES, "memory_items.provenance");
  const text = storedText(stringOf(item.text, "memory_items.text"), redact);
  const { columns, values } = toRow(MEMORY_ITEMS, { ...item, text });
  const placeholders = columns.map(() => "?");
  columns.push("text_hash");
  placeholders.push("?");
  values.push(contentHash(text));
  const index = dialect.itemIndexColumn;
  if (index) {
    columns.push(index.name);
    placeholders.push(index.placeholder);
    values.push(index.value(text));
  }
  const statements: Statement[] = [
    {
      sql: `INSERT INTO memory_items (${columns.join(", ")}) VALUES (${placeholders.join(", ")})`,
      params: values,
    },
  ];
  for (const sourceId of new Set(item.sourceIds ?? [])) {
    statements.push({
      sql: "INSERT INTO memory_links (derived_id, source_id) VALUES (?, ?) ON CONFLICT DO NOTHING",
      params: [item.id, sourceId],
    });
  }
  return statements;
}

/** The statement that bumps the generation of one vector scope. */
export const BUMP_SCOPE = `INSERT INTO embedding_scopes (owner_kind, project_key, model, generation) VALUES (?, ?, ?, 1)
  ON CONFLICT (owner_kind, project_key, model) DO UPDATE SET generation = embedding_scopes.generation + 1`;

/** Bumps the scopes of an owner's vectors; it must run before they are deleted. */
export const BUMP_OWNER_SCOPES = `UPDATE embedding_scopes SET generation = generation + 1
  WHERE (owner_kind, project_key, model) IN
    (SELECT owner_kind, project_key, model FROM embeddings WHERE owner_kind = ? AND owner_id = ?)`;

function putEmbedding(embedding: EmbeddingInput, { dialect }: PlanContext): Statement[] {
  oneOf(embedding.ownerKind, ["memory", "experience"], "embeddings.ownerKind");
  const vector = checkVector(embedding.vector, "embeddings.vector");
  const project = embedding.projectKey ?? "";
  const owner =
    embedding.ownerKind === "memory"
      ? "memory_items WHERE id = ? AND project_key = ?"
      : "experiences WHERE id = ? AND project_key IS NOT DISTINCT FROM ?";
  const column = dialect.vectors?.column;
  const extraColumn = column ? `, ${column.name}` : "";
  const extraValue = column ? `, ${column.placeholder}` : "";
  const extraUpdate = column ? `, ${column.name} = excluded.${column.name}` : "";
  const params: SqlValue[] = [
    embedding.ownerKind,
    project,
    embedding.model,
    vector.length,
    vectorToBytes(vector),
    embedding.createdAt,
  ];
  if (column) params.push(column.value(vector));
  params.push(embedding.ownerId, embedding.projectKey);
  return [
    {
      sql: `INSERT INTO embeddings (owner_kind, owner_id, project_key, model, dims, vec, created_at${extraColumn})
        SELECT ?, id, ?, ?, ?, ?, ?${extraValue} FROM ${owner}
        ON CONFLICT (owner_kind, owner_id, model) DO UPDATE SET project_key = excluded.project_key,
          dims = excluded.dims, vec = excluded.vec, created_at = excluded.created_at${extraUpdate}`,
      params,
      mustChangeOne: true,
    },
    { sql: BUMP_SCOPE, params: [embedding.ownerKind, project, embedding.model] },
  ];
}

function insertExperience(experience: ExperienceRecord, { redact }: PlanContext): Statement {
  oneOf(experience.status, STATUSES, "experiences.status");
  oneOf(experience.provenance, PROVENANCES, "experiences.provenance");
  const stored = {
    ...experience,
    condition: storedText(stringOf(experience.condition, "experiences.condition"), redact),
    rule: storedText(stringOf(experience.rule, "experiences.rule"), redact),
    keys: checkKeys(experience.keys ?? []).map((key) => storedText(key, redact)),
    conditionFilter: storedJson(experience.conditionFilter, redact),
    evidence: storedJson(experience.evidence, redact),
  };
  const { columns, values } = toRow(EXPERIENCES, stored);
  columns.push("terms");
  values.push(experienceTerms(stored));
  return {
    sql: `INSERT INTO experiences (${columns.join(", ")}) VALUES (${columns.map(() => "?").join(", ")})`,
    params: values,
  };
}

/** The index's terms of an experience as stored: its condition, rule and keys. */
export function experienceTerms(experience: {
  condition: string;
  rule: string;
  keys: readonly string[];
}): string {
  return searchTerms([experience.condition, experience.rule, ...experience.keys].join("\n")).join(" ");
}

/** Retrieval keys are short phrases: at most 24 of at most 200 characters each. */
function checkKeys(keys: unknown): string[] {
  if (!Array.isArray(keys) || keys.some((key) => typeof key !== "string")) {
    throw invalid("experiences.keys", "must be an array of strings");
  }
  return [...new Set(keys.map((key: string) => key.trim()).filter((key) => key !== ""))]
    .slice(0, 24)
    .map((key) => key.slice(0, 200));
}

const EXPERIENCE_PATCH = [
  "scope",
  "condition",
  "rule",
  "keys",
  "conditionFilter",
  "evidence",
  "confidence",
  "votes",
  "status",
] as const satisfies readonly (keyof ExperiencePatch)[];

function updateExperience(
  id: string,
  patch: ExperiencePatch,
  at: number,
  { redact }: PlanContext,
): Statement[] {
  if (patch.status !== undefined) oneOf(patch.status, STATUSES, "experiences.status");
  const stored: ExperiencePatch = { ...patch };
  if (patch.condition !== undefined) stored.condition = storedText(patch.condition, redact);
  if (patch.rule !== undefined) stored.rule = storedText(patch.rule, redact);
  if (patch.keys !== undefined) stored.keys = checkKeys(patch.keys).map((key) => storedText(key, redact));
  if (patch.conditionFilter !== undefined) stored.conditionFilter = storedJson(patch.conditionFilter, redact);
  if (patch.evidence !== undefined) stored.evidence = storedJson(patch.evidence, redact);
  const { columns, values } = patchToColumns(EXPERIENCES, { ...stored, updatedAt: at }, [
    ...EXPERIENCE_PATCH,
    "updatedAt",
  ]);
  const statements: Statement[] = [];
  const textChanged = patch.condition !== undefined || patch.rule !== undefined || patch.keys !== undefined;
  // The vectors and index terms were of the old text: the vectors are dropped, so the
  // experience is embedded again, and the terms are cut again at the next search (SQL cannot).
  if (textChanged) {
    statements.push(
      { sql: BUMP_OWNER_SCOPES, params: ["experience", id] },
      { sql: "DELETE FROM embeddings WHERE owner_kind = 'experience' AND owner_id = ?", params: [id] },
    );
    columns.push("terms");
    values.push(null);
  }
  statements.push({
    sql: `UPDATE experiences SET ${columns.map((c) => `${c} = ?`).join(", ")} WHERE id = ?`,
    params: [...values, id],
    mustChangeOne: true,
  });
  return statements;
}

// Uses are counted from experience_uses, so showing an experience twice in a run counts once.
// A withheld use (holdout) is not a use; showing the rule later in the same run (the recall
// tool) turns it into one, since the run then saw it.
const RECORD_USE = `INSERT INTO experience_uses (experience_id, trace_id, shown_at, withheld) VALUES (?, ?, ?, ?)
  ON CONFLICT (experience_id, trace_id) DO UPDATE SET withheld = 0
  WHERE experience_uses.withheld = 1 AND excluded.withheld = 0`;
const COUNT_USES = `UPDATE experiences SET
    usage_count = (SELECT count(*) FROM experience_uses u WHERE u.experience_id = experiences.id AND u.withheld = 0),
    last_used_at = CASE WHEN last_used_at IS NULL OR last_used_at < ? THEN ? ELSE last_used_at END
  WHERE id = ?`;
const UNCOUNTED = "SELECT experience_id FROM experience_uses WHERE trace_id = ? AND outcome IS NULL";

/**
 * The statements of recordOutcome; the first two's change counts are the experiences updated
 * (shown, withheld).
 */
export function recordOutcomeStatements(traceId: string, outcome: Outcome): Statement[] {
  oneOf(outcome, OUTCOMES, "outcome");
  const counter = outcome === "success" ? "success_count" : "failure_count";
  return [
    {
      sql: `UPDATE experiences SET ${counter} = ${counter} + 1 WHERE id IN (${UNCOUNTED} AND withheld = 0)`,
      params: [traceId],
    },
    {
      sql: `UPDATE experiences SET holdout_${counter} = holdout_${counter} + 1 WHERE id IN (${UNCOUNTED} AND withheld = 1)`,
      params: [traceId],
    },
    {
      sql: "UPDATE experience_uses SET outcome = ? WHERE trace_id = ? AND outcome IS NULL",
      params: [outcome, traceId],
    },
  ];
}

/** The statements that carry out one memory or experience operation. */
export function planMemoryWrite(op: MemoryWriteOp, context: PlanContext): Statement[] {
  switch (op.op) {
    case "appendMemory":
      return appendMemory(op.item, context);
    case "putEmbedding":
      return putEmbedding(op.embedding, context);
    case "cacheEmbedding": {
      const vector = checkVector(op.vector, "embedding_cache.vector");
      return [
        {
          sql: `INSERT INTO embedding_cache (model, hash, dims, vec, created_at) VALUES (?, ?, ?, ?, ?)
            ON CONFLICT (model, hash) DO UPDATE SET dims = excluded.dims, vec = excluded.vec,
              created_at = excluded.created_at`,
          params: [op.model, op.hash, vector.length, vectorToBytes(vector), op.at],
        },
      ];
    }
    case "setIndexIdentity": {
      const { model, dims } = op.identity;
      if (typeof model !== "string" || model === "" || !Number.isSafeInteger(dims) || dims < 1) {
        throw invalid("memory_index_meta", `needs a model name and dims ≥ 1, got ${model} and ${dims}`);
      }
      return [
        {
          sql: `INSERT INTO memory_index_meta (scope_key, model, dims, updated_at) VALUES (?, ?, ?, ?)
            ON CONFLICT (scope_key) DO UPDATE SET model = excluded.model, dims = excluded.dims,
              updated_at = excluded.updated_at`,
          params: [op.projectKey ?? "", model, dims, op.at],
        },
      ];
    }
    case "insertExperience":
      return [insertExperience(op.experience, context)];
    case "updateExperience":
      return updateExperience(op.id, op.patch, op.at, context);
    case "voteExperience":
      if (!Number.isSafeInteger(op.delta)) throw invalid("experiences.votes", "a vote is a whole number");
      return [
        {
          sql: "UPDATE experiences SET votes = votes + ?, updated_at = ? WHERE id = ?",
          params: [op.delta, op.at, op.id],
          mustChangeOne: true,
        },
      ];
    case "recordExperienceUse":
      return [
        { sql: RECORD_USE, params: [op.experienceId, op.traceId, op.at, op.withheld === true ? 1 : 0] },
        { sql: COUNT_USES, params: [op.at, op.at, op.experienceId], mustChangeOne: true },
      ];
    case "recordOutcome":
      return recordOutcomeStatements(op.traceId, op.outcome);
  }
}

/** What a memory operation was about, in words, for an error message. */
export function memorySubject(op: MemoryWriteOp, duplicate: boolean): string {
  switch (op.op) {
    case "appendMemory":
      return duplicate ? `memory item ${op.item.id} already exists` : `memory item ${op.item.id}`;
    case "putEmbedding": {
      const { ownerKind, ownerId, projectKey } = op.embedding;
      const owner = ownerKind === "memory" ? "memory item" : "experience";
      return `no ${owner} ${ownerId} in ${projectKey === null ? "the global scope" : `project ${projectKey}`}`;
    }
    case "cacheEmbedding":
      return `cached embedding ${op.hash}`;
    case "setIndexIdentity":
      return "index identity";
    case "insertExperience":
      return duplicate ? `experience ${op.experience.id} already exists` : `experience ${op.experience.id}`;
    case "updateExperience":
    case "voteExperience":
      return `no experience ${op.id}`;
    case "recordExperienceUse":
      return `no experience ${op.experienceId}`;
    case "recordOutcome":
      return `outcome of trace ${op.traceId}`;
  }
}
