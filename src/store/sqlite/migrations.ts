// The SQLite schema, one migration per change. STRICT tables, so a wrong type is an error
// and not a silent conversion; JSON is TEXT as JSON.stringify wrote it (exact round trip).
import type { Migration } from "../migration.js";

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
];
