// The store contract over a Driver: repositories, atomic batches, id prefixes and gc, written
// once for both backends so they keep the same semantics (the contract suite checks both).
import { ResonError } from "../core/errors.js";
import { channelRepository } from "./channel-repository.js";
import {
  type Driver,
  type Statement,
  StatementFailed,
  type TransactOptions,
  type TxQuery,
} from "./driver.js";
import { experienceRepository } from "./experience-repository.js";
import { gcCounts, gcCutoffs, gcReport, gcStatements } from "./gc-plan.js";
import { resolveIdPrefix } from "./id-prefix.js";
import { idempotencyRepository } from "./idempotency.js";
import { fenceStatement, leaseLostError, leaseRepository } from "./lease.js";
import type { PlanContext, Redact } from "./memory-plan.js";
import { memoryRepository } from "./memory-repository.js";
import { type Notice, Notices } from "./notices.js";
import {
  ARTIFACTS,
  CHECKPOINTS,
  columnList,
  fromRow,
  type Row,
  SESSIONS,
  type SqlValue,
  STEPS,
  type Table,
  TOOL_STATS,
  TRACES,
  TURNS,
} from "./records.js";
import { appendEventsNotice, runEventRepository } from "./run-events.js";
import { runPromptRepository } from "./run-prompts.js";
import { runQueueRepository } from "./run-queue.js";
import { percentile } from "./tool-stats.js";
import type {
  ApplyOptions,
  ArtifactPage,
  ArtifactRepository,
  ChannelRepository,
  CheckpointRepository,
  CloseOptions,
  ExperienceRepository,
  GcReport,
  IdempotencyRepository,
  IdMatch,
  LeaseRepository,
  MemoryRepository,
  RunEventRepository,
  RunPromptRepository,
  RunQueueRepository,
  SessionRepository,
  StepRepository,
  Store,
  StoreFeatures,
  ToolStatsRecord,
  ToolStatsRepository,
  TraceRepository,
  TurnRepository,
  WorkspaceRepository,
  WriteOp,
} from "./types.js";
import { VectorScopes } from "./vector-scopes.js";
import { workspaceRepository } from "./workspace-repository.js";
import { batchError, planWrite } from "./write-plan.js";

export interface SqlStoreOptions {
  /** Applied to every memory and experience text before it is stored, indexed or hashed. */
  redact?: Redact;
}

function select<R>(table: Table<R>, rest: string): string {
  return `SELECT ${columnList(table)} FROM ${table.name} ${rest}`;
}

function limitClause(limit: number | undefined, params: SqlValue[]): string {
  if (limit === undefined) return "";
  if (!Number.isSafeInteger(limit) || limit < 0) {
    throw new ResonError("usage_error", `A list limit must be a whole number ≥ 0, not ${limit}.`);
  }
  params.push(limit);
  return " LIMIT ?";
}

/** Lines offset..offset+limit-1 of `content`; a final newline ends the last line, not a new one. */
function pageOf(content: string, offset: number, limit: number): ArtifactPage {
  if (content === "") return { text: "", totalLines: 0 };
  const lines = content.split("\n");
  if (lines.at(-1) === "") lines.pop();
  return { text: lines.slice(offset - 1, offset - 1 + limit).join("\n"), totalLines: lines.length };
}

interface CommitOptions extends ApplyOptions {
  first?: Statement[];
  last?: Statement[];
  /** Told with the commit, besides the appended events'. */
  notices?: Notice[];
  explain?: (error: StatementFailed) => Promise<Error>;
}

export class SqlStore implements Store {
  readonly kind: "sqlite" | "postgres";
  readonly location: string;
  readonly sessions: SessionRepository;
  readonly turns: TurnRepository;
  readonly traces: TraceRepository;
  readonly steps: StepRepository;
  readonly checkpoints: CheckpointRepository;
  readonly artifacts: ArtifactRepository;
  readonly toolStats: ToolStatsRepository;
  readonly memory: MemoryRepository;
  readonly experiences: ExperienceRepository;
  readonly leases: LeaseRepository;
  readonly events: RunEventRepository;
  readonly queue: RunQueueRepository;
  readonly prompts: RunPromptRepository;
  readonly idempotency: IdempotencyRepository;
  readonly workspaces: WorkspaceRepository;
  readonly channels: ChannelRepository;
  readonly #driver: Driver;
  readonly #plan: PlanContext & { kind: "sqlite" | "postgres" };
  readonly #notices: Notices;
  readonly #vectors: VectorScopes;
  #closed = false;

  constructor(driver: Driver, options: SqlStoreOptions = {}) {
    this.#driver = driver;
    this.#plan = { redact: options.redact ?? ((text) => text), dialect: driver.memory, kind: driver.kind };
    this.#notices = new Notices(driver.notices);
    this.#vectors = new VectorScopes((sql, params) => this.#query(sql, params));
    this.kind = driver.kind;
    this.location = driver.location;
    const all = <R>(table: Table<R>, rest: string, params: SqlValue[]) => this.#all(table, rest, params);
    const one = async <R>(table: Table<R>, rest: string, params: SqlValue[]): Promise<R | undefined> =>
      (await all(table, rest, params))[0];

    this.sessions = {
      get: (id) => one(SESSIONS, "WHERE id = ?", [id]),
      list: async (options = {}) => {
        const params: SqlValue[] = [];
        let where = "";
        if (options.projectKey !== undefined) {
          where = "WHERE project_key = ? ";
          params.push(options.projectKey);
        }
        const limit = limitClause(options.limit, params);
        return all(SESSIONS, `${where}ORDER BY updated_at DESC, id DESC${limit}`, params);
      },
      latest: (projectKey) =>
        one(SESSIONS, "WHERE project_key = ? ORDER BY updated_at DESC, id DESC LIMIT 1", [projectKey]),
    };
    this.turns = {
      list: async (sessionId, options = {}) => {
        const params: SqlValue[] = [sessionId, options.afterSeq ?? -1];
        const limit = limitClause(options.limit, params);
        return all(TURNS, `WHERE session_id = ? AND seq > ? ORDER BY seq${limit}`, params);
      },
      nextSeq: async (sessionId) => {
        const rows = await this.#query("SELECT MAX(seq) AS last FROM turns WHERE session_id = ?", [
          sessionId,
        ]);
        const last = rows[0]?.last;
        return last === null || last === undefined ? 0 : Number(last) + 1;
      },
    };
    this.traces = {
      get: (id) => one(TRACES, "WHERE id = ?", [id]),
      listBySession: (sessionId) => all(TRACES, "WHERE session_id = ? ORDER BY started_at, id", [sessionId]),
      children: (parentTraceId) =>
        all(TRACES, "WHERE parent_trace_id = ? ORDER BY started_at, id", [parentTraceId]),
    };
    this.steps = {
      list: (traceId) => all(STEPS, "WHERE trace_id = ? ORDER BY seq, id", [traceId]),
    };
    this.checkpoints = {
      get: (traceId) => one(CHECKPOINTS, "WHERE trace_id = ?", [traceId]),
    };
    this.artifacts = {
      get: (id) => one(ARTIFACTS, "WHERE id = ?", [id]),
      read: async (id, offset, limit) => {
        for (const [name, value] of [
          ["offset", offset],
          ["limit", limit],
        ] as const) {
          if (!Number.isSafeInteger(value) || value < 1) {
            throw new ResonError(
              "usage_error",
              `An artifact ${name} must be a whole number ≥ 1, not ${value}.`,
            );
          }
        }
        const rows = await this.#query("SELECT content FROM artifacts WHERE id = ?", [id]);
        const row = rows[0];
        if (!row) return undefined;
        return pageOf(JSON.parse(String(row.content)) as string, offset, limit);
      },
    };
    this.toolStats = {
      list: (projectKey) => this.#toolStats(projectKey),
    };
    const context = {
      query: (sql: string, params: SqlValue[]) => this.#query(sql, params),
      transact: (what: string, statements: readonly Statement[], options?: TransactOptions) =>
        this.#transact(what, statements, options),
      apply: (ops: readonly WriteOp[]) => this.apply(ops),
      dialect: driver.memory,
      // Read when a vector search runs: SQLite loads its vector extension only then.
      get nativeVectors() {
        return driver.memory.vectors !== undefined && driver.memory.nativeSearch;
      },
      vectors: this.#vectors,
    };
    this.memory = memoryRepository(context);
    this.experiences = experienceRepository(context);
    this.leases = leaseRepository({ kind: driver.kind, query: context.query });
    const service = {
      kind: driver.kind,
      query: context.query,
      notices: this.#notices,
      transaction: async <T>(work: (query: TxQuery) => Promise<T>) => {
        this.#ensureOpen();
        try {
          return await driver.transaction(work);
        } catch (error) {
          if (!(error instanceof StatementFailed)) throw error;
          throw new ResonError(
            "store_unavailable",
            `A transaction failed and changed nothing: ${error.message}`,
            {
              hint: "Try again; if it keeps failing, check the database (reson doctor, or its server's log).",
              cause: error.cause,
            },
          );
        }
      },
    };
    this.events = runEventRepository({ ...service, liveText: driver.liveText });
    this.prompts = runPromptRepository({
      ...service,
      apply: (ops, applyOptions) => this.apply(ops, applyOptions),
    });
    this.queue = runQueueRepository({
      ...service,
      leases: this.leases,
      commit: (ops, commitOptions) => this.#commit(ops, commitOptions),
    });
    this.idempotency = idempotencyRepository(service);
    this.channels = channelRepository(service);
    this.workspaces = workspaceRepository({
      query: context.query,
      transact: (statements) => {
        this.#ensureOpen();
        return driver.transact(statements);
      },
    });
  }

  /** What the database offers; on SQLite, asking loads the vector extension (see sqlite-driver.ts). */
  get features(): StoreFeatures {
    return this.#driver.features;
  }

  /** Statements in one transaction, outside `apply` (their change counts are the answer). */
  async #transact(
    what: string,
    statements: readonly Statement[],
    options?: TransactOptions,
  ): Promise<number[]> {
    this.#ensureOpen();
    try {
      return await this.#driver.transact(statements, options);
    } catch (error) {
      if (!(error instanceof StatementFailed)) throw error;
      throw new ResonError("store_unavailable", `${what} failed and changed nothing: ${error.message}`, {
        cause: error.cause,
      });
    }
  }

  #ensureOpen(): void {
    if (this.#closed) {
      throw new ResonError("store_unavailable", `The store at ${this.location} is closed.`, {
        hint: "Open the store again with openStore().",
      });
    }
  }

  #query(sql: string, params: SqlValue[]): Promise<Row[]> {
    this.#ensureOpen();
    return this.#driver.query(sql, params);
  }

  async #all<R>(table: Table<R>, rest: string, params: SqlValue[]): Promise<R[]> {
    const rows = await this.#query(select(table, rest), params);
    return rows.map((row) => fromRow(table, row));
  }

  async #toolStats(projectKey: string): Promise<ToolStatsRecord[]> {
    const [counters, failures, samples] = await Promise.all([
      this.#all(TOOL_STATS, "WHERE project_key = ? ORDER BY tool", [projectKey]),
      this.#query(
        "SELECT tool, code, failures FROM tool_failures WHERE project_key = ? ORDER BY tool, code",
        [projectKey],
      ),
      this.#query("SELECT tool, duration_ms FROM tool_durations WHERE project_key = ?", [projectKey]),
    ]);
    const codes = new Map<string, Record<string, number>>();
    for (const row of failures) {
      const tool = String(row.tool);
      const byCode = codes.get(tool) ?? {};
      byCode[String(row.code)] = Number(row.failures);
      codes.set(tool, byCode);
    }
    const durations = new Map<string, number[]>();
    for (const row of samples) {
      const tool = String(row.tool);
      const list = durations.get(tool) ?? [];
      list.push(Number(row.duration_ms));
      durations.set(tool, list);
    }
    return counters.map((c) => {
      const sorted = (durations.get(c.tool) ?? []).sort((a, b) => a - b);
      return {
        projectKey: c.projectKey,
        tool: c.tool,
        calls: c.calls,
        successes: c.successes,
        failures: c.failures,
        failuresByCode: codes.get(c.tool) ?? {},
        totalDurationMs: c.totalDurationMs,
        p50Ms: percentile(sorted, 50),
        p95Ms: percentile(sorted, 95),
        lastCallAt: c.lastCallAt,
      };
    });
  }

  async apply(ops: readonly WriteOp[], options: ApplyOptions = {}): Promise<void> {
    await this.#commit(ops, options);
  }

  /**
   * `apply` with statements of the caller around the batch, in the same transaction: `first`
   * before the fence (the queue changes its request first, locking rows in the order a claim
   * does), `last` after the ops. A failure of theirs is for `explain` to put in words.
   */
  async #commit(ops: readonly WriteOp[], options: CommitOptions): Promise<void> {
    this.#ensureOpen();
    const { fence, first = [], last = [] } = options;
    // The fence comes before the ops: a batch of a run that lost its lease fails before writing a row.
    const statements: Statement[] = [...first, ...(fence ? [fenceStatement(fence)] : [])];
    const opsFrom = statements.length;
    const opOf: number[] = [];
    ops.forEach((op, index) => {
      for (const statement of planWrite(op, this.#plan)) {
        statements.push(statement);
        opOf.push(index);
      }
    });
    if (statements.length === opsFrom && last.length === 0) return;
    // Listeners hear of appended events with the commit (PostgreSQL: NOTIFY inside the
    // transaction, delivered only if it commits), never of a batch that failed.
    const notices: Notice[] = [...(options.notices ?? [])];
    for (const op of ops) {
      const notice = op.op === "appendEvents" ? appendEventsNotice(op) : undefined;
      if (notice) notices.push(notice);
    }
    const lastFrom = statements.length;
    statements.push(...last, ...this.#notices.statements(notices));
    try {
      await this.#driver.transact(statements);
    } catch (error) {
      if (!(error instanceof StatementFailed)) throw error;
      const { index } = error;
      if (index < first.length || (index >= lastFrom && index < lastFrom + last.length)) {
        throw options.explain ? await options.explain(error) : error;
      }
      if (fence && index === first.length) throw leaseLostError(fence, await this.leases.get(fence.traceId));
      throw batchError(ops, opOf[index - opsFrom] ?? -1, error.reason, error.cause);
    }
    this.#vectors.afterWrite(ops);
    this.#notices.committed(notices);
  }

  async resolveId(prefix: string): Promise<IdMatch> {
    // Ids are ULIDs of one fixed alphabet, so "starts with" is a range scan of the primary key.
    const range = "WHERE id >= ? AND id <= ? ORDER BY id LIMIT ?";
    return resolveIdPrefix(prefix, (lowest, highest, limit) =>
      Promise.all([
        this.#all(SESSIONS, range, [lowest, highest, limit]),
        this.#all(TRACES, range, [lowest, highest, limit]),
      ]),
    );
  }

  async gc(before: number): Promise<GcReport> {
    this.#ensureOpen();
    if (!Number.isSafeInteger(before)) {
      throw new ResonError("usage_error", `gc needs a cutoff in epoch milliseconds, not ${before}.`);
    }
    const { statements, counts } = gcStatements(gcCutoffs(before, Date.now()));
    let changed: number[];
    try {
      changed = await this.#driver.transact(statements, { consistent: true });
    } catch (error) {
      if (!(error instanceof StatementFailed)) throw error;
      throw new ResonError("store_unavailable", `gc failed and deleted nothing: ${error.message}`, {
        cause: error.cause,
      });
    }
    const report = gcReport(counts, changed);
    if (report.traces > 0 || report.sessions > 0 || report.channelMessages > 0) await this.#driver.reclaim();
    return report;
  }

  async gcPreview(before: number): Promise<GcReport> {
    this.#ensureOpen();
    if (!Number.isSafeInteger(before)) {
      throw new ResonError("usage_error", `gc needs a cutoff in epoch milliseconds, not ${before}.`);
    }
    const counts = await Promise.all(
      Object.entries(gcCounts(gcCutoffs(before, Date.now()))).map(async ([key, { sql, params }]) => {
        const rows = await this.#driver.query(sql, params);
        return [key, Number(rows[0]?.n ?? 0)] as const;
      }),
    );
    return Object.fromEntries(counts) as unknown as GcReport;
  }

  async sizeBytes(): Promise<number> {
    this.#ensureOpen();
    return this.#driver.sizeBytes();
  }

  async close(options: CloseOptions = {}): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#driver.close(options);
  }
}
