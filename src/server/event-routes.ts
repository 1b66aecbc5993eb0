// A run's events. As server-sent events: every committed event with its per-run seq as `id:`,
// from the client's Last-Event-ID (or ?after=N) onwards, read from the store (a client may have
// been away a second or a day), then live as they commit; the step in flight's text and
// thinking (of this process's runs, and relayed from the workers' on PostgreSQL) as frames
// without an id; the stream ends after the run's last event. With ?format=json: one page of
// stored events, for scripts.
import { Type } from "typebox";
import type { Announcements } from "./announcements.js";
import { EventsQuery, IdParams, StoredEventSchema } from "./api-schemas.js";
import { EndedRunEvents } from "./ended-run-events.js";
import { followRunEvents } from "./event-follower.js";
import type { LiveRuns } from "./live-runs.js";
import { defineRoute, type Route } from "./router.js";
import type { RunService } from "./run-service.js";
import { parseResumePoint } from "./sse.js";

export interface EventRouteDeps {
  service: RunService;
  announcements: Announcements;
  live: LiveRuns;
}

const ENDED: ReadonlySet<string> = new Set(["completed", "failed", "cancelled"]);

export function eventRoutes({ service, announcements, live }: EventRouteDeps): Route[] {
  const ended = new EndedRunEvents();
  const page = async (runId: string, after: number, limit: number) => {
    const events = await service.events(runId, after, limit);
    return JSON.stringify({ events: events.map((e) => ({ seq: e.seq, type: e.type, data: e.data })) });
  };
  return [
    defineRoute({
      method: "GET",
      path: "/runs/:id/events",
      summary: "A run's events: server-sent events (resume with Last-Event-ID or ?after=N), or ?format=json",
      tags: ["runs", "events"],
      auth: "bearer-or-cookie",
      params: IdParams,
      query: EventsQuery,
      responses: {
        200: {
          description:
            "text/event-stream: `id: <seq>`, `event: <type>`, `data: <event JSON>`; live text without an id. " +
            "With format=json: { events: StoredEvent[] }.",
          schema: Type.Object({ events: Type.Array(StoredEventSchema) }),
        },
      },
      handler: async ({ params, query, req, res, signal, openSse }) => {
        const after = parseResumePoint(req.headers["last-event-id"], query.after) ?? 0;
        // Unknown runs are 404 before a stream opens.
        const run = await service.getRun(params.id);
        if (query.format === "json") {
          const limit = Math.min(Number(query.limit ?? 1000), 5000);
          if (!ENDED.has(run.status)) {
            res.writeHead(200, { "content-type": "application/json; charset=utf-8" });
            res.end(await page(params.id, after, limit));
            return undefined;
          }
          // An ended run's page is kept as sent, valid while its last seq stays (a resume moves
          // it), and so is its ETag: a page opened again revalidates it and gets no body.
          const lastSeq = await service.store.events.lastSeq(params.id);
          const headers = {
            etag: `"${lastSeq.toString(36)}-${after.toString(36)}-${limit.toString(36)}"`,
            "cache-control": "private, no-cache",
          };
          if (req.headers["if-none-match"] === headers.etag) {
            res.writeHead(304, headers);
            res.end();
            return undefined;
          }
          const text = await ended.page(params.id, after, limit, lastSeq, () =>
            page(params.id, after, limit),
          );
          res.writeHead(200, { "content-type": "application/json; charset=utf-8", ...headers });
          res.end(text);
          return undefined;
        }
        const stream = openSse();
        const stopLive = live.follow(params.id, (delta) => {
          stream.send({
            event: delta.type,
            data: { type: delta.type, runId: delta.runId, step: delta.step, delta: delta.delta },
          });
        });
        try {
          await followRunEvents({
            store: service.store,
            runId: params.id,
            after,
            signal: AbortSignal.any([signal, stream.signal]),
            onAnnounce: (listener) => announcements.listen(params.id, listener),
            mayContinue: async () => {
              const run = await service.getRun(params.id).catch(() => undefined);
              return run?.status === "queued" || run?.status === "running";
            },
            send: async (event) => {
              stream.send({
                id: event.seq,
                event: event.type,
                data: { seq: event.seq, ...(event.data as object) },
              });
              await stream.drained();
            },
          });
        } finally {
          stopLive();
          stream.close();
        }
        return undefined;
      },
    }),
  ];
}
