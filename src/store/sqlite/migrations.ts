// The SQLite schema, one migration per change. STRICT tables, so a wrong type is an error
// and not a silent conversion; JSON is TEXT as JSON.stringify wrote it (exact round trip).
import { type Migration, recutExperienceTerms } from "../migration.js";

export const SQLITE_MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: "sessions, turns, traces, steps, checkpoints, tool stats",
    sql: `
CREATE TABLE sessions (
  id TEXT PRIMARY KEY,
  project_key TEXT NOT NULL,
  workspace TEXT NOT NULL,
  title TEXT NOT NULL,
  status TEXT NOT NULL,
  settings TEXT NOT NULL,
  usage TEXT NOT NULL,
  last_trace_id TEXT,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
) STRICT;
CREATE INDEX sessions_by_updated ON sessions (updated_at DESC, id DESC);
CREATE INDEX sessions_by_project ON sessions (project_key, updated_at DESC, id DESC);

CREATE TABLE turns (
  id TEXT PRIMARY KEY,
  session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
  seq INTEGER NOT NULL,
  role TEXT NOT NULL,
  content TEXT NOT NULL,
  metadata TEXT,
  trace_id TEXT,
  step INTEGER,
  created_at INTEGER NOT NULL
) STRICT;
CREATE UNIQUE INDEX turns_by_session_seq ON turns (session_id, seq);

CREATE TABLE traces (
  id TEXT PRIMARY KEY,
  session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
  parent_trace_id TEXT REFERENCES traces (id) ON DELETE SET NULL,
  task TEXT NOT NULL,
  preset TEXT,
  provider TEXT NOT NULL,
  model TEXT NOT NULL,
  base_url TEXT,
  status TEXT NOT NULL,
  usage TEXT NOT NULL,
  steps INTEGER NOT NULL,
  error TEXT,
  started_at INTEGER NOT NULL,
  ended_at INTEGER,
  updated_at INTEGER NOT NULL
) STRICT;
CREATE INDEX traces_by_session ON traces (session_id, started_at, id);
CREATE INDEX traces_by_parent ON traces (parent_trace_id) WHERE parent_trace_id IS NOT NULL;
CREATE INDEX traces_by_ended ON traces (ended_at) WHERE ended_at IS NOT NULL;

CREATE TABLE steps (
  id TEXT PRIMARY KEY,
  trace_id TEXT NOT NULL REFERENCES traces (id) ON DELETE CASCADE,
  parent_id TEXT,
  seq INTEGER NOT NULL,
  kind TEXT NOT NULL,
  status TEXT NOT NULL,
  data TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
) STRICT;
CREATE INDEX steps_by_trace ON steps (trace_id, seq);

CREATE TABLE checkpoints (
  trace_id TEXT PRIMARY KEY REFERENCES traces (id) ON DELETE CASCADE,
  step INTEGER NOT NULL,
  state TEXT NOT NULL,
  updated_at INTEGER NOT NULL
) STRICT;

CREATE TABLE tool_stats (
  project_key TEXT NOT NULL,
  tool TEXT NOT NULL,
  calls INTEGER NOT NULL,
  successes INTEGER NOT NULL,
  failures INTEGER NOT NULL,
  total_duration_ms INTEGER NOT NULL,
  last_call_at INTEGER,
  PRIMARY KEY (project_key, tool)
) STRICT;
`,
  },
  {
    version: 2,
    name: "artifacts",
    sql: `
CREATE TABLE artifacts (
  id TEXT PRIMARY KEY,
  trace_id TEXT NOT NULL REFERENCES traces (id) ON DELETE CASCADE,
  tool_call_id TEXT NOT NULL,
  name TEXT NOT NULL,
  content TEXT NOT NULL,
  chars INTEGER NOT NULL,
  created_at INTEGER NOT NULL
) STRICT;
CREATE INDEX artifacts_by_trace ON artifacts (trace_id);
`,
  },
  {
    version: 3,
    name: "tool failures by code, tool duration samples",
    sql: `
CREATE TABLE tool_failures (
  project_key TEXT NOT NULL,
  tool TEXT NOT NULL,
  code TEXT NOT NULL,
  failures INTEGER NOT NULL,
  PRIMARY KEY (project_key, tool, code)
) STRICT;

-- The last TOOL_DURATION_SAMPLES durations per project and tool, numbered by call count.
CREATE TABLE tool_durations (
  project_key TEXT NOT NULL,
  tool TEXT NOT NULL,
  seq INTEGER NOT NULL,
  duration_ms INTEGER NOT NULL,
  PRIMARY KEY (project_key, tool, seq)
) STRICT;
`,
  },
  {
    version: 4,
    name: "memory items with a trigram text index, embeddings, embedding cache, experiences",
    sql: `
-- seq is the rowid the text index refers to (declared, so VACUUM keeps it); text_hash keys the
-- embedding cache; forget_mark tags the rows a forget or an eviction is deleting.
CREATE TABLE memory_items (
  seq INTEGER PRIMARY KEY,
  id TEXT NOT NULL UNIQUE,
  project_key TEXT NOT NULL,
  session_id TEXT,
  trace_id TEXT,
  kind TEXT NOT NULL,
  role TEXT,
  text TEXT NOT NULL,
  text_hash TEXT NOT NULL,
  provenance TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  forget_mark TEXT
) STRICT;
CREATE INDEX memory_items_recent ON memory_items (project_key, created_at DESC, id DESC);
CREATE INDEX memory_items_by_session ON memory_items (session_id, created_at DESC) WHERE session_id IS NOT NULL;
CREATE INDEX memory_items_by_created ON memory_items (created_at);
CREATE INDEX memory_items_by_hash ON memory_items (text_hash);
CREATE INDEX memory_items_marked ON memory_items (forget_mark) WHERE forget_mark IS NOT NULL;

-- Trigrams match any substring of three or more characters, in any script; shorter queries
-- (用户) are answered by LIKE. External content: the text is kept once, in memory_items.
CREATE VIRTUAL TABLE memory_fts USING fts5(
  text, content = 'memory_items', content_rowid = 'seq', tokenize = 'trigram remove_diacritics 1'
);
-- A deleted item leaves nothing of its text in the index (not only a tombstone).
INSERT INTO memory_fts (memory_fts, rank) VALUES ('secure-delete', 1);
CREATE TRIGGER memory_items_indexed AFTER INSERT ON memory_items BEGIN
  INSERT INTO memory_fts (rowid, text) VALUES (new.seq, new.text);
END;
CREATE TRIGGER memory_items_unindexed AFTER DELETE ON memory_items BEGIN
  INSERT INTO memory_fts (memory_fts, rowid, text) VALUES ('delete', old.seq, old.text);
END;
CREATE TRIGGER memory_items_reindexed AFTER UPDATE OF text ON memory_items BEGIN
  INSERT INTO memory_fts (memory_fts, rowid, text) VALUES ('delete', old.seq, old.text);
  INSERT INTO memory_fts (rowid, text) VALUES (new.seq, new.text);
END;

-- A summary names the items it was made from, so forgetting them forgets it too.
CREATE TABLE memory_links (
  derived_id TEXT NOT NULL,
  source_id TEXT NOT NULL,
  PRIMARY KEY (derived_id, source_id)
) STRICT;
CREATE INDEX memory_links_by_source ON memory_links (source_id);

-- Vectors as Float32 little-endian bytes; project_key is the owner's ('' for a global experience).
CREATE TABLE embeddings (
  owner_kind TEXT NOT NULL,
  owner_id TEXT NOT NULL,
  project_key TEXT NOT NULL,
  model TEXT NOT NULL,
  dims INTEGER NOT NULL,
  vec BLOB NOT NULL,
  created_at INTEGER NOT NULL,
  PRIMARY KEY (owner_kind, owner_id, model)
) STRICT;
CREATE INDEX embeddings_by_scope ON embeddings (owner_kind, project_key, model, dims, owner_id);
CREATE INDEX embeddings_by_model ON embeddings (model, owner_kind);

-- Bumped by every write of a scope's vectors: an in-process index of the scope is current
-- while the generation it was loaded at still holds.
CREATE TABLE embedding_scopes (
  owner_kind TEXT NOT NULL,
  project_key TEXT NOT NULL,
  model TEXT NOT NULL,
  generation INTEGER NOT NULL,
  PRIMARY KEY (owner_kind, project_key, model)
) STRICT;

CREATE TABLE embedding_cache (
  model TEXT NOT NULL,
  hash TEXT NOT NULL,
  dims INTEGER NOT NULL,
  vec BLOB NOT NULL,
  created_at INTEGER NOT NULL,
  PRIMARY KEY (model, hash)
) STRICT;
CREATE INDEX embedding_cache_by_hash ON embedding_cache (hash);

-- The embedding model of a project's vectors ('' : of every project without its own).
CREATE TABLE memory_index_meta (
  scope_key TEXT PRIMARY KEY,
  model TEXT NOT NULL,
  dims INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
) STRICT;

CREATE TABLE experiences (
  id TEXT PRIMARY KEY,
  project_key TEXT,
  scope TEXT NOT NULL,
  condition TEXT NOT NULL,
  rule TEXT NOT NULL,
  condition_filter TEXT,
  evidence TEXT NOT NULL,
  confidence REAL NOT NULL,
  usage_count INTEGER NOT NULL,
  success_count INTEGER NOT NULL,
  failure_count INTEGER NOT NULL,
  votes INTEGER NOT NULL,
  provenance TEXT NOT NULL,
  status TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  last_used_at INTEGER
) STRICT;
CREATE INDEX experiences_by_project ON experiences (project_key, status, updated_at DESC);

-- Which experiences a run was shown, so its outcome counts for exactly those, once.
CREATE TABLE experience_uses (
  experience_id TEXT NOT NULL REFERENCES experiences (id) ON DELETE CASCADE,
  trace_id TEXT NOT NULL,
  shown_at INTEGER NOT NULL,
  outcome TEXT,
  PRIMARY KEY (experience_id, trace_id)
) STRICT;
CREATE INDEX experience_uses_by_trace ON experience_uses (trace_id);
`,
  },
  {
    version: 5,
    name: "run leases",
    sql: `
-- One row per run that was ever leased; it stays after a release so the epoch only grows.
-- No foreign key: a new run's lease is taken before its trace is stored (gc removes orphans).
CREATE TABLE run_leases (
  trace_id TEXT PRIMARY KEY,
  epoch INTEGER NOT NULL,
  holder_id TEXT NOT NULL,
  host TEXT NOT NULL,
  pid INTEGER NOT NULL,
  role TEXT NOT NULL,
  acquired_at INTEGER NOT NULL,
  renewed_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL,
  released_at INTEGER
) STRICT;
CREATE INDEX run_leases_unreleased ON run_leases (expires_at) WHERE released_at IS NULL;
`,
  },
  {
    version: 6,
    name: "run events, run queue, run prompts, idempotency keys",
    sql: `
-- The committed events of each run, numbered 1, 2, 3… without gaps: what an SSE client that
-- rejoins reads. No foreign key: gc deletes them with their trace.
CREATE TABLE run_events (
  trace_id TEXT NOT NULL,
  seq INTEGER NOT NULL,
  type TEXT NOT NULL,
  step INTEGER NOT NULL,
  ts INTEGER NOT NULL,
  data TEXT NOT NULL,
  PRIMARY KEY (trace_id, seq)
) STRICT;

-- Runs waiting for a worker or held by one; id is the trace id the run has or will have.
CREATE TABLE run_requests (
  id TEXT PRIMARY KEY,
  session_id TEXT NOT NULL,
  task TEXT NOT NULL,
  spec TEXT NOT NULL,
  status TEXT NOT NULL,
  attempts INTEGER NOT NULL,
  max_attempts INTEGER NOT NULL,
  not_before INTEGER NOT NULL,
  last_error TEXT,
  cancel_requested INTEGER NOT NULL,
  idempotency_key TEXT UNIQUE,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  worker TEXT,
  lease_epoch INTEGER
) STRICT;
CREATE INDEX run_requests_waiting ON run_requests (created_at, id) WHERE status IN ('queued', 'running');
CREATE INDEX run_requests_by_session ON run_requests (session_id, created_at, id);
CREATE INDEX run_requests_by_status ON run_requests (status, created_at, id);

-- Approvals and questions a run waits on, answered from another process.
CREATE TABLE run_prompts (
  id TEXT PRIMARY KEY,
  trace_id TEXT NOT NULL,
  kind TEXT NOT NULL,
  payload TEXT NOT NULL,
  status TEXT NOT NULL,
  answer TEXT,
  created_at INTEGER NOT NULL,
  answered_at INTEGER,
  expires_at INTEGER
) STRICT;
CREATE INDEX run_prompts_by_trace ON run_prompts (trace_id, created_at);
CREATE INDEX run_prompts_pending ON run_prompts (created_at) WHERE status = 'pending';

-- What a POST with an idempotency key answered; response NULL while its first request runs.
CREATE TABLE idempotency_keys (
  scope TEXT NOT NULL,
  key TEXT NOT NULL,
  request_hash TEXT NOT NULL,
  response TEXT,
  created_at INTEGER NOT NULL,
  PRIMARY KEY (scope, key)
) STRICT;
CREATE INDEX idempotency_keys_by_created ON idempotency_keys (created_at);
`,
  },
  {
    version: 7,
    name: "experience retrieval keys, ranked lexical index, holdout records",
    sql: `
-- keys: what a future task would mention (symptoms, error messages, tools, file names), a JSON
-- array written by reflection. terms: condition, rule and keys as the index cuts them (stemmed,
-- no stop words, Chinese in words; search-terms.ts), written by reson since SQL cannot cut
-- them; NULL until then (rows from before, or a text just edited), indexed at the next search.
ALTER TABLE experiences ADD COLUMN keys TEXT NOT NULL DEFAULT '[]';
ALTER TABLE experiences ADD COLUMN terms TEXT;
-- Runs that matched the rule but were not shown it (memory.holdout), by outcome.
ALTER TABLE experiences ADD COLUMN holdout_success_count INTEGER NOT NULL DEFAULT 0;
ALTER TABLE experiences ADD COLUMN holdout_failure_count INTEGER NOT NULL DEFAULT 0;
ALTER TABLE experience_uses ADD COLUMN withheld INTEGER NOT NULL DEFAULT 0;
CREATE INDEX experiences_unindexed ON experiences (id) WHERE terms IS NULL;

-- The terms are space-separated already; unicode61 splits on the spaces and ranks by bm25.
CREATE VIRTUAL TABLE experience_fts USING fts5(terms, tokenize = 'unicode61 remove_diacritics 0');
INSERT INTO experience_fts (experience_fts, rank) VALUES ('secure-delete', 1);
CREATE TRIGGER experiences_indexed AFTER INSERT ON experiences WHEN new.terms IS NOT NULL BEGIN
  INSERT INTO experience_fts (rowid, terms) VALUES (new.rowid, new.terms);
END;
CREATE TRIGGER experiences_unindexed AFTER DELETE ON experiences BEGIN
  DELETE FROM experience_fts WHERE rowid = old.rowid;
END;
CREATE TRIGGER experiences_reindexed AFTER UPDATE OF terms ON experiences BEGIN
  DELETE FROM experience_fts WHERE rowid = old.rowid;
  INSERT INTO experience_fts (rowid, terms) SELECT new.rowid, new.terms WHERE new.terms IS NOT NULL;
END;
`,
  },
  {
    version: 8,
    name: "registered workspaces",
    sql: `
-- Folders registered by name (reson workspace create, POST /workspaces). A folder is registered
-- once (path: its real path); at most one is the default (the partial unique index).
CREATE TABLE workspaces (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL UNIQUE,
  path TEXT NOT NULL UNIQUE,
  template TEXT,
  settings TEXT NOT NULL,
  created_by_reson INTEGER NOT NULL DEFAULT 0,
  is_default INTEGER NOT NULL DEFAULT 0,
  created_at INTEGER NOT NULL,
  last_used_at INTEGER
) STRICT;
CREATE UNIQUE INDEX workspaces_one_default ON workspaces (is_default) WHERE is_default = 1;
`,
  },
  recutExperienceTerms(9, "words weighed by rarity, Chinese with the words inside words, lighter stemming"),
  recutExperienceTerms(10, "added and erred stemmed as add and err"),
  {
    version: 11,
    name: "chat channels",
    sql: `
-- Every message a channel delivered, stored before it is acknowledged; (channel, dedupe_key)
-- keeps a redelivery (Telegram update_id, Slack event_id, a webhook idempotency key) out.
CREATE TABLE IF NOT EXISTS channel_inbound (
  id TEXT PRIMARY KEY,
  channel TEXT NOT NULL,
  dedupe_key TEXT NOT NULL,
  chat_key TEXT NOT NULL,
  message TEXT NOT NULL,
  status TEXT NOT NULL,
  run_id TEXT,
  reply TEXT,
  note TEXT,
  claimed_at INTEGER,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  UNIQUE (channel, dedupe_key)
) STRICT;
CREATE INDEX IF NOT EXISTS channel_inbound_status ON channel_inbound (status, created_at);
CREATE TABLE IF NOT EXISTS channel_sessions (
  channel TEXT NOT NULL,
  chat_key TEXT NOT NULL,
  session_id TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  PRIMARY KEY (channel, chat_key)
) STRICT;
CREATE TABLE IF NOT EXISTS channel_pairings (
  channel TEXT NOT NULL,
  sender_id TEXT NOT NULL,
  sender_name TEXT,
  code TEXT,
  status TEXT NOT NULL,
  role TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  expires_at INTEGER,
  approved_at INTEGER,
  PRIMARY KEY (channel, sender_id)
) STRICT;
CREATE TABLE IF NOT EXISTS channel_state (
  channel TEXT NOT NULL,
  key TEXT NOT NULL,
  value TEXT NOT NULL,
  PRIMARY KEY (channel, key)
) STRICT;
`,
  },
  recutExperienceTerms(12, "a noun in -ion or -ment indexed as itself, its verb as a light form"),
  {
    version: 13,
    name: "prompts marked when their run acted on the answer",
    sql: `
-- When a run acted on a prompt's answer (or on its time running out): an answer decides one
-- call, once, also for the run resumed by another process. No row: nothing acted on it yet.
CREATE TABLE IF NOT EXISTS run_prompt_uses (
  prompt_id TEXT PRIMARY KEY,
  used_at INTEGER NOT NULL
) STRICT;
`,
  },
];
