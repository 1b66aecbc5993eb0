// The shape of reson's configuration, as TypeBox schemas: one merged, validated object.
// Files hold a partial config; defaults fill the rest.
import { type Static, Type } from "typebox";
import { ChannelsSchema } from "./channels-schema.js";

const PositiveInt = (description: string) => Type.Integer({ minimum: 1, description });
const NonNegativeInt = (description: string) => Type.Integer({ minimum: 0, description });

export const ProviderNameSchema = Type.Union([
  Type.Literal("anthropic"),
  Type.Literal("openai"),
  Type.Literal("google"),
  Type.Literal("deepseek"),
  Type.Literal("openrouter"),
  Type.Literal("ollama"),
  Type.Literal("openai-compatible"),
]);

const RetrySchema = Type.Object(
  {
    maxAttempts: PositiveInt("attempts per model call, including the first"),
    baseDelayMs: NonNegativeInt("first backoff delay"),
    maxDelayMs: NonNegativeInt("longest backoff delay"),
    maxRetryAfterMs: NonNegativeInt("a longer Retry-After fails at once"),
  },
  { additionalProperties: false },
);

/** Unset means the provider's default: 60 s / 90 s for hosted APIs, 300 s / 120 s for local servers. */
const TimeoutsSchema = Type.Object(
  {
    headersMs: Type.Optional(PositiveInt("wait for response headers")),
    idleMs: Type.Optional(PositiveInt("longest silence between stream chunks")),
    pluginSetupMs: Type.Optional(PositiveInt("longest a plugin's setup may take before it is left out")),
    pluginHookMs: Type.Optional(PositiveInt("longest a plugin's hook may take before it is abandoned")),
  },
  { additionalProperties: false },
);

const ToolsSchema = Type.Object(
  {
    commandTimeoutMs: PositiveInt("default timeout of execute_command"),
    /** Unset: the workspace's default (8 GiB). */
    commandDiskBytes: Type.Optional(
      PositiveInt("how much one command may grow the use of the workspace's disk, in bytes"),
    ),
    maxOutputChars: PositiveInt("tool output kept before truncation"),
  },
  { additionalProperties: false },
);

/** Caps on every sub-agent (subagent tool), whatever the model asks for. */
const SubagentsSchema = Type.Object(
  {
    concurrency: PositiveInt("explore branches that run at the same time"),
    maxSteps: PositiveInt("model calls a sub-agent may make"),
    maxTokens: Type.Optional(PositiveInt("tokens a sub-agent may use")),
    maxCostUsd: Type.Optional(Type.Number({ exclusiveMinimum: 0, description: "USD a sub-agent may spend" })),
    maxWallMs: PositiveInt("wall-clock time a sub-agent may run"),
  },
  { additionalProperties: false },
);

/**
 * The embedding model of memory search; unset (or provider "none") means full text only.
 * Keys come from the environment: RESON_EMBEDDINGS_API_KEY, else OPENAI_API_KEY / GEMINI_API_KEY.
 */
const EmbeddingsSchema = Type.Object(
  {
    provider: Type.Optional(
      Type.Union([
        Type.Literal("openai"),
        Type.Literal("openai-compatible"),
        Type.Literal("ollama"),
        Type.Literal("google"),
        Type.Literal("none"),
      ]),
    ),
    model: Type.Optional(Type.String({ minLength: 1 })),
    baseUrl: Type.Optional(Type.String({ minLength: 1 })),
    dimensions: Type.Optional(PositiveInt("vector length to ask for, from models that can shorten theirs")),
    batchSize: Type.Optional(PositiveInt("texts per embedding request")),
  },
  { additionalProperties: false },
);

/** Long-term memory and experiences (learning from runs). */
const MemorySchema = Type.Object(
  {
    /** Remember runs and recall memory and experiences before each run. */
    enabled: Type.Boolean(),
    /**
     * After a run, ask the summary model for rules: "auto" after runs that hit trouble (a failed
     * call or run) or took many steps, "always", or "off".
     */
    reflect: Type.Union([Type.Literal("auto"), Type.Literal("always"), Type.Literal("off")]),
    /** Independent runs that must back a rule before it is shown to the model. */
    minEvidence: PositiveInt("runs that must back a rule before it is used"),
    maxExperiences: NonNegativeInt("experiences shown before a run"),
    maxMemories: NonNegativeInt("memories from earlier sessions shown before a run"),
    /**
     * The share of matching active rules withheld from a run at random, so `reson experiences
     * show` can compare runs with and without each rule (its uplift); 0 turns it off.
     */
    holdout: Type.Number({ minimum: 0, maximum: 0.5, description: "share of matching rules withheld" }),
    /** Runs after which a candidate rule that gained no evidence expires. */
    candidateRuns: PositiveInt("runs a candidate rule waits for evidence"),
    /**
     * The languages this project's tasks are written in ("en", "zh" or names), for the keys
     * reflection writes; unset: read off the project's recent tasks.
     */
    languages: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 40 }), {
        maxItems: 8,
        description: "languages the project's tasks are written in",
      }),
    ),
  },
  { additionalProperties: false },
);

/** The lease a run holds while a process executes it (see store leases). */
const LeaseSchema = Type.Object(
  {
    /** Unrenewed this long, the lease expires and another process may take the run over. */
    ttlMs: PositiveInt("how long a run's lease lasts unrenewed; renewed every third of it"),
  },
  { additionalProperties: false },
);

/**
 * OpenTelemetry spans (src/telemetry). Off unless an endpoint is set here or in
 * OTEL_EXPORTER_OTLP_ENDPOINT; headers (credentials) only from OTEL_EXPORTER_OTLP_HEADERS, so
 * no secret sits in a config file.
 */
const TelemetrySchema = Type.Object(
  {
    endpoint: Type.Optional(
      Type.String({ minLength: 1, description: "OTLP/HTTP base URL, e.g. http://localhost:4318" }),
    ),
    serviceName: Type.Optional(Type.String({ minLength: 1 })),
    /** Task, answers, tool arguments and results on spans, masked by the secret redactor. */
    includeContent: Type.Boolean(),
  },
  { additionalProperties: false },
);

/**
 * One MCP server: a command to start (stdio) or a URL (Streamable HTTP, or the old HTTP+SSE
 * with `type: "sse"`). Strings may hold `${VAR}` and `${VAR:-default}`, expanded at start,
 * so secrets stay in the environment and never in a file.
 */
export const McpServerSchema = Type.Object(
  {
    type: Type.Optional(Type.Union([Type.Literal("stdio"), Type.Literal("http"), Type.Literal("sse")])),
    command: Type.Optional(Type.String({ minLength: 1 })),
    args: Type.Optional(Type.Array(Type.String())),
    env: Type.Optional(Type.Record(Type.String(), Type.String())),
    cwd: Type.Optional(Type.String({ minLength: 1 })),
    url: Type.Optional(Type.String({ minLength: 1 })),
    headers: Type.Optional(Type.Record(Type.String(), Type.String())),
    /** Default true. */
    enabled: Type.Optional(Type.Boolean()),
    /** A run fails at start when this server cannot start (default false: it is skipped with a warning). */
    required: Type.Optional(Type.Boolean()),
    startupTimeoutMs: Type.Optional(PositiveInt("wait for the server to start and list its tools")),
    /** Silence allowed per call; every progress notification starts it again. */
    callTimeoutMs: Type.Optional(PositiveInt("wait for a tool call without progress")),
    /** Only these tools (the server's own names) are offered. */
    enabledTools: Type.Optional(Type.Array(Type.String())),
    disabledTools: Type.Optional(Type.Array(Type.String())),
    /**
     * Its results are yours (a local database, your own notes): they do not make a run untrusted,
     * and its calls are not held back after untrusted content. Read only from $RESON_HOME/config.json.
     */
    trusted: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);

const McpSchema = Type.Object(
  {
    servers: Type.Record(Type.String({ pattern: "^[A-Za-z0-9_.-]+$" }), McpServerSchema),
    /**
     * Above this share of the context budget, MCP tools are offered by name through
     * tool_search and their schemas load on demand.
     */
    toolSearchRatio: Type.Number({ minimum: 0, maximum: 1 }),
    /**
     * Project servers (from .mcp.json or .reson/config.json) started without asking; honoured
     * only in the user's own $RESON_HOME/config.json.
     */
    allowProjectServers: Type.Optional(Type.Array(Type.String())),
  },
  { additionalProperties: false },
);

/** What web_fetch and the browser may reach. */
const WebSchema = Type.Object(
  {
    /** Loopback and private hosts web_fetch and the browser may request (e.g. "127.0.0.1"); none by default. */
    allowPrivateHosts: Type.Array(Type.String({ minLength: 1 })),
  },
  { additionalProperties: false },
);

/** The run's browser (browser tools). */
const BrowserSchema = Type.Object(
  {
    /** Offer the browser tools at all. */
    enabled: Type.Boolean(),
    /** Chromium or Chrome to run; default the first chromium / google-chrome on PATH. */
    executablePath: Type.Optional(Type.String({ minLength: 1 })),
    headless: Type.Boolean(),
    /** The older name of web.allowPrivateHosts, still read (for the browser and web_fetch alike). */
    allowPrivateHosts: Type.Array(Type.String({ minLength: 1 })),
    snapshotTokens: PositiveInt("tokens of page snapshot shown after each browser action"),
  },
  { additionalProperties: false },
);

/**
 * Workspace snapshots (reson diff, reson rewind): taken before and after every call that may
 * change the workspace, stored under $RESON_HOME/snapshots.
 */
const SnapshotsSchema = Type.Object(
  {
    enabled: Type.Boolean(),
    /** Files larger than this are left out of snapshots (and listed as such). */
    maxFileBytes: PositiveInt("largest file kept in a snapshot, in bytes"),
    /** Past this, the oldest runs' snapshots of the workspace are removed (never the latest run's). */
    maxBytesPerWorkspace: PositiveInt("snapshot storage per workspace, in bytes"),
    /** gitignore-style patterns left out besides the ignore files (`!pattern` takes one back). */
    exclude: Type.Array(Type.String({ minLength: 1 })),
  },
  { additionalProperties: false },
);

/** `reson serve`. */
const ServeSchema = Type.Object(
  {
    /**
     * Folders under which a request may name a workspace by its absolute path; anywhere else
     * only registered workspaces (by id, name or folder) are accepted. None by default.
     */
    workspaceRoots: Type.Array(Type.String({ minLength: 1 })),
  },
  { additionalProperties: false },
);

const topLevel = {
  provider: Type.Optional(ProviderNameSchema),
  model: Type.Optional(Type.String({ minLength: 1 })),
  baseUrl: Type.Optional(Type.String({ minLength: 1 })),
  /** Overrides the model registry's context window. */
  contextWindow: Type.Optional(PositiveInt("context window in tokens")),
  maxOutputTokens: Type.Optional(PositiveInt("max output tokens per model call")),
  /** The model that writes compaction summaries (same provider); default the main model. */
  summaryModel: Type.Optional(Type.String({ minLength: 1 })),
  /** Share of the context window a request may fill before trimming and compaction. */
  contextBudgetRatio: Type.Number({ exclusiveMinimum: 0, maximum: 1 }),
  maxIterations: PositiveInt("model calls allowed in one run"),
  /** Consecutive failed steps that stop a run. */
  circuitBreakerThreshold: PositiveInt("consecutive failed steps before the run stops"),
};

export const ConfigSchema = Type.Object(
  {
    ...topLevel,
    retry: RetrySchema,
    timeouts: TimeoutsSchema,
    tools: ToolsSchema,
    subagents: SubagentsSchema,
    embeddings: EmbeddingsSchema,
    memory: MemorySchema,
    lease: LeaseSchema,
    telemetry: TelemetrySchema,
    mcp: McpSchema,
    web: WebSchema,
    browser: BrowserSchema,
    snapshots: SnapshotsSchema,
    serve: ServeSchema,
    /** Chat apps and webhooks `reson serve` takes messages from (only $RESON_HOME/config.json). */
    channels: Type.Optional(ChannelsSchema),
    /** Each plugin's own section, by plugin name: what its code gets as `api.config`. */
    plugins: Type.Record(Type.String(), Type.Unknown()),
  },
  { additionalProperties: false },
);

/** What a config file, the environment or flags may hold: any subset, at any depth. */
export const PartialConfigSchema = Type.Partial(
  Type.Object({
    ...topLevel,
    retry: Type.Partial(RetrySchema, { additionalProperties: false }),
    timeouts: Type.Partial(TimeoutsSchema, { additionalProperties: false }),
    tools: Type.Partial(ToolsSchema, { additionalProperties: false }),
    subagents: Type.Partial(SubagentsSchema, { additionalProperties: false }),
    embeddings: Type.Partial(EmbeddingsSchema, { additionalProperties: false }),
    memory: Type.Partial(MemorySchema, { additionalProperties: false }),
    lease: Type.Partial(LeaseSchema, { additionalProperties: false }),
    telemetry: Type.Partial(TelemetrySchema, { additionalProperties: false }),
    mcp: Type.Partial(McpSchema, { additionalProperties: false }),
    web: Type.Partial(WebSchema, { additionalProperties: false }),
    browser: Type.Partial(BrowserSchema, { additionalProperties: false }),
    snapshots: Type.Partial(SnapshotsSchema, { additionalProperties: false }),
    serve: Type.Partial(ServeSchema, { additionalProperties: false }),
    channels: ChannelsSchema,
    plugins: Type.Record(Type.String(), Type.Unknown()),
  }),
  { additionalProperties: false },
);

export type PartialConfig = Static<typeof PartialConfigSchema>;
export type ResonConfig = Static<typeof ConfigSchema>;
export type McpServerConfig = Static<typeof McpServerSchema>;

export const DEFAULT_CONFIG: ResonConfig = {
  maxIterations: 50,
  contextBudgetRatio: 0.85,
  circuitBreakerThreshold: 3,
  retry: { maxAttempts: 4, baseDelayMs: 500, maxDelayMs: 30_000, maxRetryAfterMs: 60_000 },
  timeouts: {},
  tools: { commandTimeoutMs: 120_000, maxOutputChars: 50_000 },
  subagents: { concurrency: 3, maxSteps: 20, maxWallMs: 600_000 },
  embeddings: {},
  memory: {
    enabled: true,
    reflect: "auto",
    minEvidence: 2,
    maxExperiences: 4,
    maxMemories: 3,
    holdout: 0.1,
    candidateRuns: 20,
  },
  lease: { ttlMs: 30_000 },
  telemetry: { includeContent: false },
  mcp: { servers: {}, toolSearchRatio: 0.1 },
  web: { allowPrivateHosts: [] },
  browser: { enabled: true, headless: true, allowPrivateHosts: [], snapshotTokens: 4_000 },
  snapshots: {
    enabled: true,
    maxFileBytes: 10 * 1024 * 1024,
    maxBytesPerWorkspace: 2 * 1024 * 1024 * 1024,
    exclude: [],
  },
  serve: { workspaceRoots: [] },
  plugins: {},
};
