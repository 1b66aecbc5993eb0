// Answers of POSTs that carry an idempotency key (creating a session, say): the first request
// under a key reserves it, runs, and keeps its response; a repeat gets that response back. The
// reservation is an insert the database lets exactly one of racing requests make.
import { ResonError } from "../core/errors.js";
import { type Kind, NOW_MS } from "./lease.js";
import { type Row, type SqlValue, toJson } from "./records.js";
import type { IdempotencyRepository, RememberOptions } from "./types.js";

/** A first request silent this long is taken to have died with its reservation. */
const DEFAULT_STALE_MS = 60_000;

function conflict(scope: string, key: string, why: "different" | "running"): ResonError {
  if (why === "different") {
    return new ResonError(
      "idempotency_conflict",
      `The idempotency key ${key} was already used for a different ${scope} request.`,
      {
        hint: "Send a new idempotency key for a new request; reuse a key only to repeat the same request.",
        details: { scope, key },
      },
    );
  }
  return new ResonError(
    "idempotency_conflict",
    `A ${scope} request with the idempotency key ${key} is still being handled.`,
    {
      hint: "Repeat the request in a moment: it then gets the first request's answer.",
      details: { scope, key, inProgress: true },
    },
  );
}

export function idempotencyRepository(context: {
  kind: Kind;
  query: (sql: string, params: SqlValue[]) => Promise<Row[]>;
}): IdempotencyRepository {
  const { kind, query } = context;
  const now = NOW_MS[kind];
  // Reserves the key, or takes over a reservation whose request went silent (a crash).
  const reserve = `INSERT INTO idempotency_keys (scope, key, request_hash, response, created_at)
    VALUES (?, ?, ?, NULL, ${now})
    ON CONFLICT (scope, key) DO UPDATE SET request_hash = excluded.request_hash, created_at = excluded.created_at
    WHERE idempotency_keys.response IS NULL AND idempotency_keys.created_at <= ${now} - ?
    RETURNING created_at`;

  return {
    remember: async <T extends object>(
      scope: string,
      key: string,
      requestHash: string,
      make: () => Promise<T>,
      options: RememberOptions = {},
    ) => {
      const staleMs = options.staleMs ?? DEFAULT_STALE_MS;
      for (;;) {
        const [stored] = await query(
          "SELECT request_hash, response FROM idempotency_keys WHERE scope = ? AND key = ?",
          [scope, key],
        );
        if (stored && String(stored.request_hash) !== requestHash) throw conflict(scope, key, "different");
        if (stored && stored.response !== null && stored.response !== undefined) {
          // Stored by this function from a T of the same scope and request.
          return { response: JSON.parse(String(stored.response)) as T, replayed: true };
        }
        const [reserved] = await query(reserve, [scope, key, requestHash, staleMs]);
        if (!reserved) {
          // Another request holds the key: its answer, or a conflict, on the next look.
          const [again] = await query(
            "SELECT request_hash, response FROM idempotency_keys WHERE scope = ? AND key = ?",
            [scope, key],
          );
          if (!again) continue;
          if (String(again.request_hash) !== requestHash) throw conflict(scope, key, "different");
          if (again.response === null || again.response === undefined) throw conflict(scope, key, "running");
          continue;
        }
        const mark = reserved.created_at;
        let response: T;
        try {
          response = await make();
        } catch (error) {
          // The request failed: the key is free for a retry of it.
          await query(
            "DELETE FROM idempotency_keys WHERE scope = ? AND key = ? AND response IS NULL AND created_at = ?",
            [scope, key, Number(mark)],
          );
          throw error;
        }
        await query(
          "UPDATE idempotency_keys SET response = ? WHERE scope = ? AND key = ? AND created_at = ?",
          [toJson(response, "idempotency_keys.response"), scope, key, Number(mark)],
        );
        return { response, replayed: false };
      }
    },
  };
}
