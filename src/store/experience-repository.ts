// Experiences over a Driver: learned rules of a project or global, their lifecycle
// (candidate, active, retired), the runs each was shown in and the outcomes of those runs, and
// search by the vector of their condition. The success rate is computed here and only here.
import { ResonError } from "../core/errors.js";
import { lessonTextScore } from "./lesson-text-score.js";
import { experienceTerms, recordOutcomeStatements } from "./memory-plan.js";
import {
  aliasedColumns,
  checkLimit,
  checkVectorQuery,
  nearestFiltered,
  nearestOwners,
  type RepositoryContext,
} from "./memory-repository.js";
import { EXPERIENCES, fromRow, type Row, type SqlValue } from "./records.js";
import { weightedTerms } from "./search-terms.js";
import type {
  Experience,
  ExperienceRecord,
  ExperienceRepository,
  ExperienceStatus,
  Outcome,
  WriteOp,
} from "./types.js";

/**
 * The Bayesian success rate: the mean of a Beta(1, 1) prior updated with the counts, so an
 * experience shown once is not rated 100 % or 0 % (memory-tools.md §8 item 6).
 */
export function successRate(successes: number, failures: number): number {
  return (successes + 1) / (successes + failures + 2);
}

function withRate(record: ExperienceRecord): Experience {
  return { ...record, successRate: successRate(record.successCount, record.failureCount) };
}

/** Candidates the text index ranks, at least, before they are scored (a broad net). */
const MIN_TEXT_CANDIDATES = 64;
/** Query terms sent to the index, at most: a long pasted task stays a bounded query. */
const MAX_QUERY_TERMS = 64;
/** Experiences indexed per search at most; the rest wait for the next one. */
const REINDEX_BATCH = 500;

function statusesOf(status: ExperienceStatus | readonly ExperienceStatus[] | undefined): string | null {
  if (status === undefined) return null;
  return JSON.stringify(typeof status === "string" ? [status] : status);
}

export function experienceRepository(context: RepositoryContext): ExperienceRepository {
  const columns = aliasedColumns(EXPERIENCES, "x");
  const values = `SELECT t.value FROM ${context.dialect.jsonValues}`;
  const prepared = new Set<string>();
  const read = (rows: Row[]) => rows.map((row) => withRate(fromRow(EXPERIENCES, row)));
  const apply = (op: WriteOp) => context.apply([op]);
  const { experienceText } = context.dialect;
  const textSearch = `SELECT ${columns}, x.terms AS terms, ${experienceText.relevance} AS relevance
    FROM ${experienceText.from} WHERE ${experienceText.match}
      AND (x.project_key = ? OR x.project_key IS NULL)
      AND (CAST(? AS TEXT) IS NULL OR x.status IN (${values}))
    ORDER BY relevance DESC, x.id LIMIT ?`;

  /** Cuts the terms of experiences that have none (new text, or rows older than the index). */
  const reindex = async (limit = REINDEX_BATCH): Promise<number> => {
    const rows = await context.query(
      "SELECT id, condition, rule, keys FROM experiences WHERE terms IS NULL ORDER BY id LIMIT ?",
      [checkLimit(limit, "A limit")],
    );
    if (rows.length === 0) return 0;
    const statements = rows.map((row) => {
      const keys: unknown = typeof row.keys === "string" ? JSON.parse(row.keys) : row.keys;
      const terms = experienceTerms({
        condition: String(row.condition),
        rule: String(row.rule),
        keys: Array.isArray(keys) ? keys.map(String) : [],
      });
      // Only if the text is still the one cut: an edit meanwhile sets terms to NULL again.
      return {
        sql: "UPDATE experiences SET terms = ? WHERE id = ? AND terms IS NULL AND condition = ? AND rule = ?",
        params: [terms, String(row.id), String(row.condition), String(row.rule)],
      };
    });
    const changed = await context.transact("Indexing experiences", statements);
    return changed.reduce((sum, n) => sum + n, 0);
  };

  return {
    get: async (id) =>
      read(await context.query(`SELECT ${columns} FROM experiences x WHERE x.id = ?`, [id]))[0],

    list: async (filter = {}) => {
      const where: string[] = [];
      const params: SqlValue[] = [];
      if (filter.projectKey === null) where.push("x.project_key IS NULL");
      else if (filter.projectKey !== undefined) {
        where.push(
          filter.includeGlobal === false
            ? "x.project_key = ?"
            : "(x.project_key = ? OR x.project_key IS NULL)",
        );
        params.push(filter.projectKey);
      }
      const statuses = statusesOf(filter.status);
      if (statuses !== null) {
        where.push(`x.status IN (${values})`);
        params.push(statuses);
      }
      if (filter.scope !== undefined) {
        where.push("x.scope = ?");
        params.push(filter.scope);
      }
      let limit = "";
      if (filter.limit !== undefined) {
        params.push(checkLimit(filter.limit, "A limit"));
        limit = " LIMIT ?";
      }
      const clause = where.length > 0 ? `WHERE ${where.join(" AND ")} ` : "";
      return read(
        await context.query(
          `SELECT ${columns} FROM experiences x ${clause}ORDER BY x.updated_at DESC, x.id DESC${limit}`,
          params,
        ),
      );
    },

    insert: (experience) => apply({ op: "insertExperience", experience }),

    // A new condition drops the experience's vectors and bumps their scopes' generation, so
    // an in-process index reloads at its next search.
    update: (id, patch, at = Date.now()) => apply({ op: "updateExperience", id, patch, at }),

    vote: (id, delta, at = Date.now()) => apply({ op: "voteExperience", id, delta, at }),

    retire: (id, at = Date.now()) => apply({ op: "updateExperience", id, patch: { status: "retired" }, at }),

    search: async (query, options) => {
      const limit = checkLimit(options.limit);
      if (typeof options.projectKey !== "string") {
        throw new ResonError("usage_error", "An experience search needs the project key it runs for.");
      }
      const statuses = statusesOf(options.status);
      // A project with no rules does not cut the query (which may load the Chinese dictionary).
      const any = await context.query(
        `SELECT 1 AS found FROM experiences x WHERE (x.project_key = ? OR x.project_key IS NULL)
          AND (CAST(? AS TEXT) IS NULL OR x.status IN (${values})) LIMIT 1`,
        [options.projectKey, statuses, statuses],
      );
      if (any.length === 0) return [];
      const wanted = weightedTerms(query);
      const expression = experienceText.anyOf(
        [...wanted]
          .sort((a, b) => b.weight - a.weight)
          .slice(0, MAX_QUERY_TERMS)
          .map((t) => t.term),
      );
      if (limit === 0 || expression === "") return [];
      await reindex();
      const rows = await context.query(textSearch, [
        expression,
        options.projectKey,
        statuses,
        statuses,
        Math.max(limit, MIN_TEXT_CANDIDATES),
      ]);
      return rows
        .map((row) => {
          const terms = new Set(String(row.terms ?? "").split(" "));
          return {
            experience: withRate(fromRow(EXPERIENCES, row)),
            score: lessonTextScore(wanted, terms),
            rank: Number(row.relevance),
            matched: wanted.filter((t) => terms.has(t.term)).map((t) => t.term),
          };
        })
        .sort((a, b) => b.score - a.score || b.rank - a.rank)
        .slice(0, limit);
    },

    reindex,

    recordUse: (experienceId, traceId, at = Date.now()) =>
      apply({ op: "recordExperienceUse", experienceId, traceId, at }),

    recordOutcome: async (traceId, outcome: Outcome) => {
      const [shown = 0, withheld = 0] = await context.transact(
        `Recording the outcome of trace ${traceId}`,
        recordOutcomeStatements(traceId, outcome),
      );
      return shown + withheld;
    },

    usesIn: async (traceId) => {
      const rows = await context.query(
        "SELECT experience_id, shown_at, outcome, withheld FROM experience_uses WHERE trace_id = ? ORDER BY shown_at, experience_id",
        [traceId],
      );
      return rows.map((row) => ({
        experienceId: String(row.experience_id),
        shownAt: Number(row.shown_at),
        outcome: row.outcome === null ? null : (String(row.outcome) as Outcome),
        withheld: Number(row.withheld) === 1,
      }));
    },

    vectorSearch: async (vector, model, options) => {
      const query = checkVectorQuery(vector);
      const limit = checkLimit(options.limit);
      if (typeof options.projectKey !== "string") {
        throw new ResonError("usage_error", "An experience search needs the project key it runs for.");
      }
      const statuses = statusesOf(options.status);
      if (!query) return [];
      const found = await nearestFiltered(
        limit,
        statuses !== null,
        async (k) => {
          // The project's experiences and the global ones ('' in the vector tables).
          const [own, global] = await Promise.all(
            [options.projectKey, ""].map((project) =>
              nearestOwners(context, prepared, "experience", project, model, query, k),
            ),
          );
          return [...(own ?? []), ...(global ?? [])].sort((a, b) => b.score - a.score).slice(0, k);
        },
        async (ids) => {
          if (ids.length === 0) return new Map();
          const rows = await context.query(
            `SELECT ${columns} FROM experiences x WHERE x.id IN (${values})
               AND (CAST(? AS TEXT) IS NULL OR x.status IN (${values}))`,
            [JSON.stringify(ids), statuses, statuses],
          );
          return new Map(read(rows).map((e) => [e.id, e]));
        },
      );
      return found.map(({ record, score }) => ({ experience: record, score }));
    },
  };
}
