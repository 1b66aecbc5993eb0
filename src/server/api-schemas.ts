// The shapes of the service's requests and answers, in TypeBox: the routes validate with them
// and /openapi.json is generated from them. Events have their one schema in core/events.ts.
import { Type } from "typebox";
import { SerializedErrorSchema } from "../core/errors.js";
import { UsageSchema } from "../core/usage.js";
import { RunSettingsFields } from "../runner/index.js";

const Id = Type.String({ minLength: 1, maxLength: 64, description: "a ULID" });
const Ms = Type.Number({ description: "milliseconds since the epoch" });

export const IdParams = Type.Object({ id: Id });
export const PromptParams = Type.Object({
  id: Id,
  toolCallId: Type.String({ minLength: 1, maxLength: 256 }),
});

const ErrorSummary = Type.Object({
  code: Type.String(),
  message: Type.String(),
  hint: Type.Optional(Type.String()),
});

export const SessionViewSchema = Type.Object(
  {
    id: Id,
    workspace: Type.String(),
    title: Type.String(),
    status: Type.Union(["active", "completed", "failed", "aborted"].map((s) => Type.Literal(s))),
    provider: Type.String(),
    model: Type.String(),
    usage: UsageSchema,
    lastRunId: Type.Union([Id, Type.Null()]),
    createdAt: Ms,
    updatedAt: Ms,
  },
  { $id: "Session" },
);

export const RunStateSchema = Type.Union(
  ["queued", "running", "completed", "failed", "cancelled", "aborted"].map((s) => Type.Literal(s)),
  { $id: "RunState" },
);

export const RunViewSchema = Type.Object(
  {
    id: Id,
    sessionId: Id,
    task: Type.String(),
    status: RunStateSchema,
    traceStatus: Type.Union([Type.String(), Type.Null()]),
    steps: Type.Integer(),
    usage: UsageSchema,
    error: Type.Union([ErrorSummary, Type.Null()]),
    attempts: Type.Integer({ description: "claims by workers so far" }),
    worker: Type.Union([Type.String(), Type.Null()]),
    cancelRequested: Type.Boolean(),
    provider: Type.Union([Type.String(), Type.Null()]),
    model: Type.Union([Type.String(), Type.Null()]),
    createdAt: Ms,
    startedAt: Type.Union([Ms, Type.Null()]),
    endedAt: Type.Union([Ms, Type.Null()]),
    parentRunId: Type.Optional(Type.String({ description: "the run that started this one (a sub-agent's)" })),
  },
  { $id: "Run" },
);

/** What a run is to be, as a request gives it: no key, no secret (a worker has its own). */
const RunSettings = RunSettingsFields;

const Task = Type.String({ minLength: 1, maxLength: 200_000 });
const Policy = Type.Optional(
  Type.Union([Type.Literal("enqueue"), Type.Literal("reject"), Type.Literal("interrupt")], {
    description: "what to do when the session has a run in progress (default enqueue)",
  }),
);

/** How a request names a workspace (never an arbitrary path: see RunServiceOptions.workspaceRoots). */
const WorkspaceRef = Type.String({
  minLength: 1,
  maxLength: 4096,
  description:
    "a registered workspace's id (ws_…) or name, or an absolute path that is a registered workspace's folder or lies under one of the server's workspace roots (--workspace-root, serve.workspaceRoots)",
});

export const WorkspaceViewSchema = Type.Object(
  {
    id: Type.String({ description: "ws_ and a ULID" }),
    name: Type.String(),
    path: Type.String({ description: "the folder's real path on the server's machine" }),
    template: Type.Union([Type.String(), Type.Null()]),
    isDefault: Type.Boolean(),
    createdAt: Ms,
    lastUsedAt: Type.Union([Ms, Type.Null()]),
  },
  { $id: "Workspace" },
);

export const RegisterWorkspaceBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 63, pattern: "^[A-Za-z0-9][A-Za-z0-9._-]*$" }),
    template: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
    path: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 4096,
        description:
          "absolute path under a workspace root (made if missing); default a new folder in the server's $RESON_HOME/workspaces",
      }),
    ),
  },
  { additionalProperties: false, $id: "RegisterWorkspace" },
);

export const WorkspaceParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) });

export const CreateSessionBody = Type.Object(
  {
    workspace: WorkspaceRef,
    title: Type.Optional(Type.String({ maxLength: 200 })),
    provider: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
    model: Type.Optional(Type.String({ minLength: 1, maxLength: 256 })),
    baseUrl: Type.Optional(Type.String({ minLength: 1, maxLength: 2048 })),
    trustWorkspace: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false, $id: "CreateSession" },
);

export const StartRunBody = Type.Object(
  {
    task: Task,
    workspace: Type.Optional(WorkspaceRef),
    sessionId: Type.Optional(Id),
    policy: Policy,
    ...RunSettings,
  },
  { additionalProperties: false, $id: "StartRun" },
);

export const SessionRunBody = Type.Object(
  { task: Task, policy: Policy, ...RunSettings },
  { additionalProperties: false, $id: "StartSessionRun" },
);

export const ApprovalBody = Type.Object(
  {
    decision: Type.Union([Type.Literal("allow_once"), Type.Literal("allow_session"), Type.Literal("deny")]),
    note: Type.Optional(Type.String({ maxLength: 4000, description: "shown to the model with a denial" })),
  },
  { additionalProperties: false, $id: "ApprovalAnswer" },
);

export const QuestionBody = Type.Object(
  { answer: Type.String({ maxLength: 100_000 }) },
  { additionalProperties: false, $id: "QuestionAnswer" },
);

export const PromptSchema = Type.Object(
  {
    id: Id,
    runId: Id,
    kind: Type.Union([Type.Literal("permission"), Type.Literal("question")]),
    status: Type.Union([Type.Literal("pending"), Type.Literal("answered"), Type.Literal("expired")]),
    payload: Type.Unknown({
      description: "the tool, arguments (secrets masked) and reason; or the question",
    }),
    answer: Type.Unknown(),
    createdAt: Ms,
    expiresAt: Type.Union([Ms, Type.Null()]),
  },
  { $id: "Prompt" },
);

export const StoredEventSchema = Type.Object(
  {
    seq: Type.Integer({ minimum: 1 }),
    type: Type.String(),
    data: Type.Unknown({ description: "the event (see the ResonEvent schema)" }),
  },
  { $id: "StoredEvent" },
);

export const ListSessionsQuery = Type.Object({
  status: Type.Optional(Type.String({ maxLength: 32 })),
  workspace: Type.Optional(
    Type.String({ maxLength: 4096, description: "a workspace's id or name, or a folder's absolute path" }),
  ),
  limit: Type.Optional(Type.String({ pattern: "^[0-9]{1,4}$" })),
});

export const EventsQuery = Type.Object({
  after: Type.Optional(Type.String({ pattern: "^[0-9]{1,16}$" })),
  format: Type.Optional(Type.Union([Type.Literal("sse"), Type.Literal("json")])),
  limit: Type.Optional(Type.String({ pattern: "^[0-9]{1,4}$" })),
});

export const ReadySchema = Type.Object({
  ready: Type.Boolean(),
  store: Type.String(),
  queue: Type.Object({
    queued: Type.Integer(),
    running: Type.Integer(),
    oldestQueuedAgeMs: Type.Union([Type.Number(), Type.Null()]),
  }),
  localWorkers: Type.Integer(),
});

export { SerializedErrorSchema };
