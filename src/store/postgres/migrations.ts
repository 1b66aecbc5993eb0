// The PostgreSQL schema, one migration per change. Ids use the "C" collation so a prefix is a
// plain byte range of the primary key; epoch ms are BIGINT. The payloads a model sees again
// (content, data, state) are `json`, which keeps the text exactly as written (key order,
// \u0000 escapes) so an old turn renders to the same bytes; small structured columns are JSONB.
import { type Migration, recutExperienceTerms } from "../migration.js";

export const POSTGRES_MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: "sessions, turns, traces, steps, checkpoints, tool stats, features",
    sql: `
CREATE TABLE sessions (
  id text COLLATE "C" PRIMARY KEY,
  project_key text NOT NULL,
  workspace text NOT NULL,
  title text NOT NULL,
  status text NOT NULL,
  settings jsonb NOT NULL,
  usage jsonb NOT NULL,
  last_trace_id text COLLATE "C",
  created_at bigint NOT NULL,
  updated_at bigint NOT NULL
);
CREATE INDEX sessions_by_updated ON sessions (updated_at DESC, id DESC);
CREATE INDEX sessions_by_project ON sessions (project_key, updated_at DESC, id DESC);

CREATE TABLE turns (
  id text COLLATE "C" PRIMARY KEY,
  session_id text COLLATE "C" NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
  seq integer NOT NULL,
  role text NOT NULL,
  content json NOT NULL,
  metadata jsonb,
  trace_id text COLLATE "C",
  step integer,
  created_at bigint NOT NULL
);
CREATE UNIQUE INDEX turns_by_session_seq ON turns (session_id, seq);

CREATE TABLE traces (
  id text COLLATE "C" PRIMARY KEY,
  session_id text COLLATE "C" NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
  parent_trace_id text COLLATE "C" REFERENCES traces (id) ON DELETE SET NULL,
  task text NOT NULL,
  preset text,
  provider text NOT NULL,
  model text NOT NULL,
  base_url text,
  status text NOT NULL,
  usage jsonb NOT NULL,
  steps integer NOT NULL,
  error jsonb,
  started_at bigint NOT NULL,
  ended_at bigint,
  updated_at bigint NOT NULL
);
CREATE INDEX traces_by_session ON traces (session_id, started_at, id);
CREATE INDEX traces_by_parent ON traces (parent_trace_id) WHERE parent_trace_id IS NOT NULL;
CREATE INDEX traces_by_ended ON traces (ended_at) WHERE ended_at IS NOT NULL;

CREATE TABLE steps (
  id text COLLATE "C" PRIMARY KEY,
  trace_id text COLLATE "C" NOT NULL REFERENCES traces (id) ON DELETE CASCADE,
  parent_id text COLLATE "C",
  seq integer NOT NULL,
  kind text NOT NULL,
  status text NOT NULL,
  data json NOT NULL,
  created_at bigint NOT NULL,
  updated_at bigint NOT NULL
);
CREATE INDEX steps_by_trace ON steps (trace_id, seq);

CREATE TABLE checkpoints (
  trace_id text COLLATE "C" PRIMARY KEY REFERENCES traces (id) ON DELETE CASCADE,
  step integer NOT NULL,
  state json NOT NULL,
  updated_at bigint NOT NULL
);

CREATE TABLE tool_stats (
  project_key text NOT NULL,
  tool text NOT NULL,
  calls bigint NOT NULL,
  successes bigint NOT NULL,
  failures bigint NOT NULL,
  total_duration_ms bigint NOT NULL,
  last_call_at bigint,
  PRIMARY KEY (project_key, tool)
);

-- What the server offers beyond the contract (pgvector), checked on every open.
CREATE TABLE store_features (
  name text PRIMARY KEY,
  enabled boolean NOT NULL,
  checked_at bigint NOT NULL
);
`,
  },
  {
    version: 2,
    name: "artifacts",
    sql: `
CREATE TABLE artifacts (
  id text COLLATE "C" PRIMARY KEY,
  trace_id text COLLATE "C" NOT NULL REFERENCES traces (id) ON DELETE CASCADE,
  tool_call_id text NOT NULL,
  name text NOT NULL,
  content json NOT NULL,
  chars bigint NOT NULL,
  created_at bigint NOT NULL
);
CREATE INDEX artifacts_by_trace ON artifacts (trace_id);
`,
  },
  {
    version: 3,
    name: "tool failures by code, tool duration samples",
    sql: `
CREATE TABLE tool_failures (
  project_key text NOT NULL,
  tool text NOT NULL,
  code text NOT NULL,
  failures bigint NOT NULL,
  PRIMARY KEY (project_key, tool, code)
);

-- The last TOOL_DURATION_SAMPLES durations per project and tool, numbered by call count.
CREATE TABLE tool_durations (
  project_key text NOT NULL,
  tool text NOT NULL,
  seq bigint NOT NULL,
  duration_ms bigint NOT NULL,
  PRIMARY KEY (project_key, tool, seq)
);
`,
  },
  {
    version: 4,
    name: "memory items with a bigram text index, embeddings, embedding cache, experiences",
    sql: `
-- tsv indexes the item's words and the bigrams of its CJK runs (text-terms.ts), which works
-- in any database locale (pg_trgm sees no CJK in a C-locale database). forget_mark tags the
-- rows a forget or an eviction is deleting.
CREATE TABLE memory_items (
  id text COLLATE "C" PRIMARY KEY,
  project_key text NOT NULL,
  session_id text COLLATE "C",
  trace_id text COLLATE "C",
  kind text NOT NULL,
  role text,
  text text NOT NULL,
  text_hash text NOT NULL,
  provenance text NOT NULL,
  created_at bigint NOT NULL,
  forget_mark text,
  tsv tsvector NOT NULL
);
CREATE INDEX memory_items_recent ON memory_items (project_key, created_at DESC, id DESC);
CREATE INDEX memory_items_by_session ON memory_items (session_id, created_at DESC) WHERE session_id IS NOT NULL;
CREATE INDEX memory_items_by_created ON memory_items (created_at);
CREATE INDEX memory_items_by_hash ON memory_items (text_hash);
CREATE INDEX memory_items_marked ON memory_items (forget_mark) WHERE forget_mark IS NOT NULL;
CREATE INDEX memory_items_tsv ON memory_items USING gin (tsv);

CREATE TABLE memory_links (
  derived_id text COLLATE "C" NOT NULL,
  source_id text COLLATE "C" NOT NULL,
  PRIMARY KEY (derived_id, source_id)
);
CREATE INDEX memory_links_by_source ON memory_links (source_id);

-- Vectors as Float32 little-endian bytes (a pgvector column joins them when the server has it).
CREATE TABLE embeddings (
  owner_kind text NOT NULL,
  owner_id text COLLATE "C" NOT NULL,
  project_key text NOT NULL,
  model text NOT NULL,
  dims integer NOT NULL,
  vec bytea NOT NULL,
  created_at bigint NOT NULL,
  PRIMARY KEY (owner_kind, owner_id, model)
);
CREATE INDEX embeddings_by_scope ON embeddings (owner_kind, project_key, model, dims, owner_id);
CREATE INDEX embeddings_by_model ON embeddings (model, owner_kind);

CREATE TABLE embedding_scopes (
  owner_kind text NOT NULL,
  project_key text NOT NULL,
  model text NOT NULL,
  generation bigint NOT NULL,
  PRIMARY KEY (owner_kind, project_key, model)
);

CREATE TABLE embedding_cache (
  model text NOT NULL,
  hash text NOT NULL,
  dims integer NOT NULL,
  vec bytea NOT NULL,
  created_at bigint NOT NULL,
  PRIMARY KEY (model, hash)
);
CREATE INDEX embedding_cache_by_hash ON embedding_cache (hash);

CREATE TABLE memory_index_meta (
  scope_key text PRIMARY KEY,
  model text NOT NULL,
  dims integer NOT NULL,
  updated_at bigint NOT NULL
);

CREATE TABLE experiences (
  id text COLLATE "C" PRIMARY KEY,
  project_key text,
  scope text NOT NULL,
  condition text NOT NULL,
  rule text NOT NULL,
  condition_filter jsonb,
  evidence jsonb NOT NULL,
  confidence double precision NOT NULL,
  usage_count bigint NOT NULL,
  success_count bigint NOT NULL,
  failure_count bigint NOT NULL,
  votes bigint NOT NULL,
  provenance text NOT NULL,
  status text NOT NULL,
  created_at bigint NOT NULL,
  updated_at bigint NOT NULL,
  last_used_at bigint
);
CREATE INDEX experiences_by_project ON experiences (project_key, status, updated_at DESC);

CREATE TABLE experience_uses (
  experience_id text COLLATE "C" NOT NULL REFERENCES experiences (id) ON DELETE CASCADE,
  trace_id text COLLATE "C" NOT NULL,
  shown_at bigint NOT NULL,
  outcome text,
  PRIMARY KEY (experience_id, trace_id)
);
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
  trace_id text COLLATE "C" PRIMARY KEY,
  epoch bigint NOT NULL,
  holder_id text NOT NULL,
  host text NOT NULL,
  pid integer NOT NULL,
  role text NOT NULL,
  acquired_at bigint NOT NULL,
  renewed_at bigint NOT NULL,
  expires_at bigint NOT NULL,
  released_at bigint
);
CREATE INDEX run_leases_unreleased ON run_leases (expires_at) WHERE released_at IS NULL;
`,
  },
  {
    version: 6,
    name: "run events, run queue, run prompts, idempotency keys",
    sql: `
-- The committed events of each run, numbered 1, 2, 3… without gaps: what an SSE client that
-- rejoins reads. No foreign key: gc deletes them with their trace. Payloads are json, not jsonb:
-- tool output may hold \\u0000, which jsonb refuses.
CREATE TABLE run_events (
  trace_id text COLLATE "C" NOT NULL,
  seq bigint NOT NULL,
  type text NOT NULL,
  step bigint NOT NULL,
  ts bigint NOT NULL,
  data json NOT NULL,
  PRIMARY KEY (trace_id, seq)
);

-- Runs waiting for a worker or held by one; id is the trace id the run has or will have.
CREATE TABLE run_requests (
  id text COLLATE "C" PRIMARY KEY,
  session_id text NOT NULL,
  task text NOT NULL,
  spec json NOT NULL,
  status text NOT NULL,
  attempts bigint NOT NULL,
  max_attempts bigint NOT NULL,
  not_before bigint NOT NULL,
  last_error jsonb,
  cancel_requested bigint NOT NULL,
  idempotency_key text UNIQUE,
  created_at bigint NOT NULL,
  updated_at bigint NOT NULL,
  worker text,
  lease_epoch bigint
);
CREATE INDEX run_requests_waiting ON run_requests (created_at, id) WHERE status IN ('queued', 'running');
CREATE INDEX run_requests_by_session ON run_requests (session_id, created_at, id);
CREATE INDEX run_requests_by_status ON run_requests (status, created_at, id);

-- Approvals and questions a run waits on, answered from another process.
CREATE TABLE run_prompts (
  id text COLLATE "C" PRIMARY KEY,
  trace_id text COLLATE "C" NOT NULL,
  kind text NOT NULL,
  payload json NOT NULL,
  status text NOT NULL,
  answer json,
  created_at bigint NOT NULL,
  answered_at bigint,
  expires_at bigint
);
CREATE INDEX run_prompts_by_trace ON run_prompts (trace_id, created_at);
CREATE INDEX run_prompts_pending ON run_prompts (created_at) WHERE status = 'pending';

-- What a POST with an idempotency key answered; response NULL while its first request runs.
CREATE TABLE idempotency_keys (
  scope text NOT NULL,
  key text NOT NULL,
  request_hash text NOT NULL,
  response json,
  created_at bigint NOT NULL,
  PRIMARY KEY (scope, key)
);
CREATE INDEX idempotency_keys_by_created ON idempotency_keys (created_at);
`,
  },
  {
    version: 7,
    name: "experience retrieval keys, ranked lexical index, holdout records",
    sql: `
-- keys: what a future task would mention (symptoms, error messages, tools, file names), written
-- by reflection. terms: condition, rule and keys as the index cuts them (stemmed, no stop
-- words, Chinese in words; search-terms.ts), written by reson since SQL cannot cut them; NULL
-- until then (rows from before, or a text just edited), indexed at the next search.
ALTER TABLE experiences ADD COLUMN keys jsonb NOT NULL DEFAULT '[]'::jsonb;
ALTER TABLE experiences ADD COLUMN terms text;
ALTER TABLE experiences ADD COLUMN tsv tsvector GENERATED ALWAYS AS (to_tsvector('simple', coalesce(terms, ''))) STORED;
-- Runs that matched the rule but were not shown it (memory.holdout), by outcome.
ALTER TABLE experiences ADD COLUMN holdout_success_count bigint NOT NULL DEFAULT 0;
ALTER TABLE experiences ADD COLUMN holdout_failure_count bigint NOT NULL DEFAULT 0;
ALTER TABLE experience_uses ADD COLUMN withheld integer NOT NULL DEFAULT 0;
CREATE INDEX experiences_tsv ON experiences USING gin (tsv);
CREATE INDEX experiences_unindexed ON experiences (id) WHERE terms IS NULL;
`,
  },
  {
    version: 8,
    name: "registered workspaces",
    sql: `
-- Folders registered by name (reson workspace create, POST /workspaces). A folder is registered
-- once (path: its real path); at most one is the default (the partial unique index).
CREATE TABLE workspaces (
  id text PRIMARY KEY,
  name text NOT NULL UNIQUE,
  path text NOT NULL UNIQUE,
  template text,
  settings jsonb NOT NULL,
  created_by_reson integer NOT NULL DEFAULT 0,
  is_default integer NOT NULL DEFAULT 0,
  created_at bigint NOT NULL,
  last_used_at bigint
);
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
  id text PRIMARY KEY,
  channel text NOT NULL,
  dedupe_key text NOT NULL,
  chat_key text NOT NULL,
  message text NOT NULL,
  status text NOT NULL,
  run_id text,
  reply text,
  note text,
  claimed_at bigint,
  created_at bigint NOT NULL,
  updated_at bigint NOT NULL,
  UNIQUE (channel, dedupe_key)
);
CREATE INDEX IF NOT EXISTS channel_inbound_status ON channel_inbound (status, created_at);
CREATE TABLE IF NOT EXISTS channel_sessions (
  channel text NOT NULL,
  chat_key text NOT NULL,
  session_id text NOT NULL,
  created_at bigint NOT NULL,
  PRIMARY KEY (channel, chat_key)
);
CREATE TABLE IF NOT EXISTS channel_pairings (
  channel text NOT NULL,
  sender_id text NOT NULL,
  sender_name text,
  code text,
  status text NOT NULL,
  role text NOT NULL,
  created_at bigint NOT NULL,
  expires_at bigint,
  approved_at bigint,
  PRIMARY KEY (channel, sender_id)
);
CREATE TABLE IF NOT EXISTS channel_state (
  channel text NOT NULL,
  key text NOT NULL,
  value text NOT NULL,
  PRIMARY KEY (channel, key)
);
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
  prompt_id text PRIMARY KEY,
  used_at bigint NOT NULL
);
`,
  },
];

/** The tables of the store, for sizeBytes. */
export const POSTGRES_TABLES = [
  "schema_migrations",
  "store_features",
  "sessions",
  "turns",
  "traces",
  "steps",
  "checkpoints",
  "artifacts",
  "tool_stats",
  "tool_failures",
  "tool_durations",
  "memory_items",
  "memory_links",
  "embeddings",
  "embedding_scopes",
  "embedding_cache",
  "memory_index_meta",
  "experiences",
  "experience_uses",
  "run_leases",
  "run_events",
  "run_requests",
  "run_prompts",
  "run_prompt_uses",
  "idempotency_keys",
  "workspaces",
  "channel_inbound",
  "channel_sessions",
  "channel_pairings",
  "channel_state",
];
