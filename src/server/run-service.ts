// What `reson serve` does, without HTTP: sessions, runs queued in the store for a worker (this
// process's own, or `reson worker` processes elsewhere), their state, trace, goal tree and
// events, cancellation, and the answers to approvals and questions runs wait on. The routes
// validate requests and call this; everything here reads and writes through the store, so any
// number of serve processes may stand in front of one database.
import { createHash } from "node:crypto";
import { realpath } from "node:fs/promises";
import { isAbsolute } from "node:path";
import { titleOf, workspaceStanding } from "../agent/index.js";
import { resonHome } from "../config/index.js";
import { ResonError } from "../core/errors.js";
import type { AnsweredBy } from "../core/events.js";
import { ulid } from "../core/ids.js";
import { emptyUsage } from "../core/usage.js";
import { approveTemplateSettings } from "../permissions/index.js";
import type { RunSpec } from "../runner/index.js";
import {
  projectKey,
  type RunEventRecord,
  type RunPromptRecord,
  type RunRequestRecord,
  type SessionRecord,
  type Store,
  type TraceRecord,
  type WorkspaceRecord,
} from "../store/index.js";
import type { ApprovalAnswer } from "../worker/index.js";
import { realPathOf } from "../workspace/index.js";
import { rootHolding, WorkspaceManager } from "../workspaces/index.js";

/** What a second task does to a session whose run is still going. */
export type BusyPolicy = "enqueue" | "reject" | "interrupt";

export type RunState = "queued" | "running" | "completed" | "failed" | "cancelled" | "aborted";

export interface RunView {
  id: string;
  sessionId: string;
  task: string;
  status: RunState;
  /** The trace's own status where it has started (a cancelled run's trace says "aborted"). */
  traceStatus: TraceRecord["status"] | null;
  steps: number;
  usage: TraceRecord["usage"];
  error: { code: string; message: string; hint?: string } | null;
  attempts: number;
  worker: string | null;
  cancelRequested: boolean;
  provider: string | null;
  model: string | null;
  createdAt: number;
  startedAt: number | null;
  endedAt: number | null;
}

export interface SessionView {
  id: string;
  workspace: string;
  title: string;
  status: SessionRecord["status"];
  provider: string;
  model: string;
  usage: SessionRecord["usage"];
  lastRunId: string | null;
  createdAt: number;
  updatedAt: number;
}

export interface RunServiceOptions {
  store: Store;
  /** Whether this process executes runs itself (then a workspace must exist here). */
  executesLocally: boolean;
  /** Claims before a run whose workers keep dying fails (default 3). */
  maxAttempts?: number;
  /**
   * Folders under which a request may name a workspace by its path. Anywhere else a request
   * names a registered workspace (its id, name or folder): never an arbitrary path.
   */
  workspaceRoots?: readonly string[];
  env?: NodeJS.ProcessEnv;
  /** What of a posted task is kept (task-masking.ts); default the task as given. */
  maskTask?: (task: string) => Promise<string>;
}

export interface WorkspaceView {
  id: string;
  name: string;
  path: string;
  template: string | null;
  isDefault: boolean;
  createdAt: number;
  lastUsedAt: number | null;
}

export interface RegisterWorkspaceInput {
  name: string;
  template?: string;
  /** An absolute path under a workspace root; default a new folder in $RESON_HOME/workspaces. */
  path?: string;
}

export interface CreateSessionInput {
  /** A registered workspace's id or name, or an absolute path (see RunServiceOptions.workspaceRoots). */
  workspace: string;
  title?: string;
  provider?: string;
  model?: string;
  baseUrl?: string;
  trustWorkspace?: boolean;
}

export interface StartRunInput {
  task: string;
  /** An existing session; absent: a new one in `spec.workspace`. */
  sessionId?: string;
  spec: Partial<RunSpec>;
  policy?: BusyPolicy;
  idempotencyKey?: string;
}

/** An answer POSTed to the API (the web view's too). */
const HTTP_ANSWER: AnsweredBy = { channel: "http" };
const ACTIVE: ReadonlySet<RunRequestRecord["status"]> = new Set(["queued", "running"]);

export class RunService {
  readonly #store: Store;
  readonly #options: RunServiceOptions;
  readonly #workspaces: WorkspaceManager;

  constructor(options: RunServiceOptions) {
    this.#store = options.store;
    this.#options = options;
    this.#workspaces = new WorkspaceManager({
      store: options.store,
      ...(options.env ? { env: options.env } : {}),
    });
  }

  async listWorkspaces(): Promise<WorkspaceView[]> {
    return (await this.#workspaces.list()).map(workspaceView);
  }

  async getWorkspace(ref: string): Promise<WorkspaceView> {
    return workspaceView(await this.#workspaces.get(ref));
  }

  /**
   * Registers a workspace: a new folder in this machine's $RESON_HOME/workspaces, or a folder
   * under a workspace root (made if missing); nowhere else.
   */
  async registerWorkspace(input: RegisterWorkspaceInput): Promise<WorkspaceView> {
    if (input.path !== undefined) this.#assertUnderRoot(requireAbsolute(input.path));
    const { workspace, fromUserTemplate } = await this.#workspaces.create({
      name: input.name,
      ...(input.template ? { template: input.template } : {}),
      ...(input.path ? { path: input.path, within: this.#options.workspaceRoots ?? [] } : {}),
    });
    // The user's own template: what its settings grant is theirs, approved with it.
    await approveTemplateSettings(resonHome(this.#options.env), workspace.path, fromUserTemplate);
    return workspaceView(workspace);
  }

  get store(): Store {
    return this.#store;
  }

  async createSession(input: CreateSessionInput, idempotencyKey?: string): Promise<SessionView> {
    const { maskTask } = this.#options;
    const make = async () =>
      sessionView(
        await this.#insertSession(
          input.title && maskTask ? { ...input, title: await maskTask(input.title) } : input,
        ),
      );
    if (!idempotencyKey) return make();
    const hash = requestHash(input);
    return (await this.#store.idempotency.remember("sessions", idempotencyKey, hash, make)).response;
  }

  async listSessions(filter: {
    status?: string;
    workspace?: string;
    limit?: number;
  }): Promise<SessionView[]> {
    const sessions = await this.#store.sessions.list({
      limit: Math.min(filter.limit ?? 50, 500),
      ...(filter.workspace
        ? {
            projectKey: projectKey(
              isAbsolute(filter.workspace)
                ? await realpathOr(filter.workspace)
                : (await this.#workspaces.get(filter.workspace)).path,
            ),
          }
        : {}),
    });
    return sessions.filter((s) => !filter.status || s.status === filter.status).map(sessionView);
  }

  async getSession(id: string): Promise<SessionView> {
    return sessionView(await this.#session(id));
  }

  /**
   * Queues a run. A session that is busy (a run queued or running) gets it after the others
   * (enqueue), refuses it (reject: 409), or has its running run cancelled first (interrupt).
   */
  async startRun(input: StartRunInput): Promise<{ run: RunView; created: boolean }> {
    if (!input.idempotencyKey) return { run: await this.#startRun(input), created: true };
    // A repeat of a POST already taken changes nothing and gets the same run, as it is now.
    const { idempotencyKey, ...request } = input;
    const { response, replayed } = await this.#store.idempotency.remember(
      "runs",
      idempotencyKey,
      requestHash(request),
      async () => ({ runId: (await this.#startRun(input)).id }),
    );
    return { run: await this.getRun(response.runId), created: !replayed };
  }

  async #startRun(given: StartRunInput): Promise<RunView> {
    const { maskTask } = this.#options;
    const input = maskTask ? { ...given, task: await maskTask(given.task) } : given;
    const session = input.sessionId
      ? await this.#session(input.sessionId)
      : await this.#insertSession({
          workspace: requireWorkspace(input.spec.workspace),
          ...(input.spec.provider ? { provider: input.spec.provider } : {}),
          ...(input.spec.model ? { model: input.spec.model } : {}),
          ...(input.spec.baseUrl ? { baseUrl: input.spec.baseUrl } : {}),
          ...(input.spec.trustWorkspace ? { trustWorkspace: true } : {}),
          title: titleOf(input.task, requireWorkspace(input.spec.workspace)),
        });
    const busy = (await this.#store.queue.listBySession(session.id)).filter((r) => ACTIVE.has(r.status));
    const policy = input.policy ?? "enqueue";
    if (busy.length > 0 && policy === "reject") {
      throw new ResonError("session_busy", `Session ${session.id} has a run in progress (${busy[0]!.id}).`, {
        hint: 'Wait for it to end, send policy "enqueue" to run after it, or "interrupt" to cancel it first.',
        details: { sessionId: session.id, runId: busy[0]!.id },
      });
    }
    if (policy === "interrupt") for (const request of busy) await this.#store.queue.requestCancel(request.id);
    // A session's next run keeps what its last one was given (model, rules, limits…) unless
    // this request says otherwise, as `reson run --continue` does.
    const spec: RunSpec = {
      ...(await this.#sessionSpec(session)),
      ...definedFields(input.spec),
      workspace: session.workspace,
    } as RunSpec;
    const { request } = await this.#store.queue.enqueue({
      id: ulid(),
      sessionId: session.id,
      task: input.task,
      spec,
      maxAttempts: this.#options.maxAttempts ?? 3,
    });
    return this.#view(request);
  }

  async getRun(id: string): Promise<RunView> {
    const request = await this.#store.queue.get(id);
    if (request) return this.#view(request);
    const trace = await this.#store.traces.get(id);
    if (!trace) throw notFound("run", id);
    return traceOnlyView(trace);
  }

  async listRuns(sessionId: string): Promise<RunView[]> {
    await this.#session(sessionId);
    const requests = await this.#store.queue.listBySession(sessionId);
    const traces = await this.#store.traces.listBySession(sessionId);
    const queued = new Set(requests.map((r) => r.id));
    const views = await Promise.all(requests.map((r) => this.#view(r)));
    // Runs started elsewhere (the CLI) belong to the session too; sub-agent runs hang under theirs.
    for (const trace of traces)
      if (!queued.has(trace.id) && !trace.parentTraceId) views.push(traceOnlyView(trace));
    return views.sort((a, b) => a.createdAt - b.createdAt || a.id.localeCompare(b.id));
  }

  async cancelRun(id: string): Promise<RunView> {
    const request = await this.#store.queue.requestCancel(id);
    if (!request) {
      if (await this.#store.traces.get(id))
        throw new ResonError(
          "usage_error",
          `Run ${id} was not started through the service, so it cannot be cancelled here.`,
          {
            hint: "Stop it where it runs (Ctrl-C in its terminal).",
          },
        );
      throw notFound("run", id);
    }
    return this.#view(request);
  }

  /** The run's steps as stored (a tree through parentId), and its sub-agent runs. */
  async trace(id: string): Promise<{ run: RunView; steps: unknown[]; children: RunView[] }> {
    const run = await this.getRun(id);
    const steps = await this.#store.steps.list(id);
    const children = (await this.#store.traces.children(id)).map(traceOnlyView);
    return { run, steps, children };
  }

  /** The goal tree after the run's last committed step. */
  async goals(id: string): Promise<{ goals: unknown[]; focusedId: string | null }> {
    await this.getRun(id);
    const checkpoint = await this.#store.checkpoints.get(id);
    const tree = (
      checkpoint?.state as { goals?: { goals?: unknown[]; focusedId?: string | null } } | undefined
    )?.goals;
    return { goals: tree?.goals ?? [], focusedId: tree?.focusedId ?? null };
  }

  async events(id: string, after: number, limit: number): Promise<RunEventRecord[]> {
    return this.#store.events.list(id, { after, limit });
  }

  async pendingPrompts(runId: string): Promise<RunPromptRecord[]> {
    await this.getRun(runId);
    return this.#store.prompts.listPending(runId);
  }

  /** Answers an approval; `answeredBy` says who (an HTTP client unless a channel says otherwise). */
  async answerApproval(
    runId: string,
    toolCallId: string,
    answer: ApprovalAnswer,
    answeredBy: AnsweredBy = HTTP_ANSWER,
  ): Promise<RunPromptRecord> {
    return this.#answer(runId, "permission", toolCallId, { ...answer, answeredBy });
  }

  async answerQuestion(
    runId: string,
    toolCallId: string,
    answer: string,
    answeredBy: AnsweredBy = HTTP_ANSWER,
  ): Promise<RunPromptRecord> {
    return this.#answer(runId, "question", toolCallId, { answer, answeredBy });
  }

  async #answer(runId: string, kind: "permission" | "question", key: string, answer: object) {
    const pending = await this.#store.prompts.listPending(runId);
    const prompt = pending.find(
      (p) => p.kind === kind && (p.id === key || (p.payload as { toolCallId?: string }).toolCallId === key),
    );
    if (!prompt) {
      const what = kind === "permission" ? "approval" : "question";
      throw new ResonError("not_found", `Run ${runId} has no pending ${what} for ${key}.`, {
        hint: "It may have been answered already or timed out; GET /runs/{id}/prompts lists what is pending.",
      });
    }
    const outcome = await this.#store.prompts.answer(prompt.id, answer);
    if (outcome !== "answered") {
      throw new ResonError(
        "prompt_closed",
        `That prompt was ${outcome.replace("_", " ")} before this answer.`,
        {
          hint: "Nothing changed; GET /runs/{id}/prompts lists what is pending.",
        },
      );
    }
    return (await this.#store.prompts.get(prompt.id)) ?? prompt;
  }

  /** What the session's newest queued run was given; for a session without one, its model. */
  async #sessionSpec(session: SessionRecord): Promise<Partial<RunSpec>> {
    const last = (await this.#store.queue.listBySession(session.id)).at(-1);
    if (last && typeof last.spec === "object" && last.spec !== null) {
      // A chat message's envelope belongs to that one run, never to the session's next ones.
      const { channelMessage: _own, ...spec } = last.spec as Partial<RunSpec>;
      return spec;
    }
    return {
      ...(session.settings.provider ? { provider: session.settings.provider } : {}),
      ...(session.settings.model ? { model: session.settings.model } : {}),
      ...(session.settings.baseUrl ? { baseUrl: session.settings.baseUrl } : {}),
    };
  }

  async #session(id: string): Promise<SessionRecord> {
    const session = await this.#store.sessions.get(id);
    if (!session) throw notFound("session", id);
    return session;
  }

  async #insertSession(input: CreateSessionInput): Promise<SessionRecord> {
    const workspace = await this.#checkedWorkspace(input.workspace, input.trustWorkspace === true);
    const now = Date.now();
    const session: SessionRecord = {
      id: ulid(now),
      projectKey: projectKey(workspace),
      workspace,
      title: input.title?.trim() || workspace,
      status: "active",
      settings: {
        provider: input.provider ?? "",
        model: input.model ?? "",
        ...(input.baseUrl ? { baseUrl: input.baseUrl } : {}),
      },
      usage: emptyUsage(),
      lastTraceId: null,
      createdAt: now,
      updatedAt: now,
    };
    await this.#store.apply([{ op: "insertSession", session }]);
    return session;
  }

  /**
   * The workspace as the runs will see it: absolute; where this process executes runs, a real
   * folder that is not `/`, a system folder or reson's own, nor a broad one unless trusted.
   */
  async #checkedWorkspace(given: string, trusted: boolean): Promise<string> {
    const value = requireWorkspace(given).trim();
    if (!isAbsolute(value)) {
      // An id or a name: the registered folder, checked like any other below.
      const registered = await this.#workspaces.get(value);
      await this.#workspaces.touch(registered);
      return this.#standingChecked(registered.path, trusted);
    }
    const path = value;
    const registered = await this.#workspaces.byPath(await realpathOr(path));
    if (registered) await this.#workspaces.touch(registered);
    else this.#assertUnderRoot(path);
    return this.#standingChecked(path, trusted);
  }

  /**
   * Refuses a path that is not under one of the workspace roots, compared by real path (of its
   * deepest existing ancestor, symlinks followed even where they lead nowhere yet).
   */
  #assertUnderRoot(path: string): void {
    const roots = this.#options.workspaceRoots ?? [];
    if (rootHolding(realPathOf(path), roots) !== undefined) return;
    throw new ResonError(
      "forbidden",
      `${path} is not a registered workspace, nor under a workspace root of this server.`,
      {
        hint:
          roots.length > 0
            ? `Name a registered workspace by id or name (GET /workspaces), or a folder under ${roots.join(", ")}.`
            : "Name a registered workspace by id or name (GET /workspaces; register one with POST /workspaces or `reson workspace create`), or start reson serve with --workspace-root <folder> (serve.workspaceRoots in $RESON_HOME/config.json).",
        details: { path },
      },
    );
  }

  async #standingChecked(path: string, trusted: boolean): Promise<string> {
    let real: string;
    try {
      real = await realpath(path);
    } catch {
      if (this.#options.executesLocally)
        throw new ResonError(
          "workspace_invalid",
          `The workspace folder ${path} does not exist on this machine.`,
          {
            hint: "Create it first, or give an existing absolute path.",
          },
        );
      return path; // a worker elsewhere checks it
    }
    const standing = await workspaceStanding(real, this.#options.env ?? process.env);
    if (standing.kind === "refused") throw standing.error;
    if (standing.kind === "needs_trust" && !trusted) throw standing.error;
    return real;
  }

  async #view(request: RunRequestRecord): Promise<RunView> {
    const trace = await this.#store.traces.get(request.id);
    const error = trace?.error ?? request.lastError;
    return {
      id: request.id,
      sessionId: request.sessionId,
      task: request.task,
      status: request.status,
      traceStatus: trace?.status ?? null,
      steps: trace?.steps ?? 0,
      usage: trace?.usage ?? emptyUsage(),
      error: error
        ? { code: error.code, message: error.message, ...(error.hint ? { hint: error.hint } : {}) }
        : null,
      attempts: request.attempts,
      worker: request.worker,
      cancelRequested: request.cancelRequested,
      provider: trace?.provider ?? null,
      model: trace?.model ?? null,
      createdAt: request.createdAt,
      startedAt: trace?.startedAt ?? null,
      endedAt: trace?.endedAt ?? null,
    };
  }
}

function traceOnlyView(trace: TraceRecord): RunView {
  return {
    id: trace.id,
    sessionId: trace.sessionId,
    task: trace.task,
    status: trace.status === "running" ? "running" : trace.status,
    traceStatus: trace.status,
    steps: trace.steps,
    usage: trace.usage,
    error: trace.error
      ? {
          code: trace.error.code,
          message: trace.error.message,
          ...(trace.error.hint ? { hint: trace.error.hint } : {}),
        }
      : null,
    attempts: 0,
    worker: null,
    cancelRequested: false,
    provider: trace.provider,
    model: trace.model,
    createdAt: trace.startedAt,
    startedAt: trace.startedAt,
    endedAt: trace.endedAt,
    ...(trace.parentTraceId ? { parentRunId: trace.parentTraceId } : {}),
  };
}

function sessionView(session: SessionRecord): SessionView {
  return {
    id: session.id,
    workspace: session.workspace,
    title: session.title,
    status: session.status,
    provider: session.settings.provider,
    model: session.settings.model,
    usage: session.usage,
    lastRunId: session.lastTraceId,
    createdAt: session.createdAt,
    updatedAt: session.updatedAt,
  };
}

function requireWorkspace(workspace: string | undefined): string {
  if (!workspace?.trim())
    throw new ResonError("usage_error", "A workspace must be given.", {
      hint: 'Send "workspace": a registered workspace\'s id or name (GET /workspaces), or an absolute path under a workspace root; or a sessionId of an existing session.',
    });
  return workspace;
}

function requireAbsolute(path: string): string {
  if (isAbsolute(path)) return path;
  throw new ResonError("usage_error", `${path} is not an absolute path.`, {
    hint: "Give the workspace's folder as an absolute path, or leave path out to make one in $RESON_HOME/workspaces.",
  });
}

function workspaceView(workspace: WorkspaceRecord): WorkspaceView {
  return {
    id: workspace.id,
    name: workspace.name,
    path: workspace.path,
    template: workspace.template,
    isDefault: workspace.isDefault,
    createdAt: workspace.createdAt,
    lastUsedAt: workspace.lastUsedAt,
  };
}

async function realpathOr(path: string): Promise<string> {
  return realpath(path).catch(() => path);
}

function notFound(what: string, id: string): ResonError {
  return new ResonError("not_found", `No ${what} ${id}.`, {
    hint:
      what === "run" ? "GET /sessions/{id}/runs lists a session's runs." : "GET /sessions lists sessions.",
  });
}

function definedFields<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}

function requestHash(value: unknown): string {
  return createHash("sha256").update(JSON.stringify(value)).digest("hex");
}
