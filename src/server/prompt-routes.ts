// What this serve waits on from a person, across its runs: the pending approvals and questions
// with the run and session they hold up, so a client (the web view's "waiting for you" badge)
// can say so from any page without opening every run's stream.
import { type Static, Type } from "typebox";
import type { Announcements } from "./announcements.js";
import { PromptSchema } from "./api-schemas.js";
import { defineRoute, type Route } from "./router.js";
import { promptView } from "./run-routes.js";
import type { RunService } from "./run-service.js";

const WaitingSchema = Type.Object(
  {
    ...PromptSchema.properties,
    sessionId: Type.Union([Type.String(), Type.Null()], { description: "the session of the run held up" }),
    task: Type.Union([Type.String(), Type.Null()], { description: "the task of the run held up" }),
  },
  { $id: "WaitingPrompt" },
);

type Waiting = Static<typeof WaitingSchema>;

/** A re-read now and then besides the announcements: a prompt that times out ends quietly. */
const RECHECK_MS = 10_000;
/** Announcements come in bursts (a step's events): one read after the burst. */
const SETTLE_MS = 100;

async function waiting(service: RunService): Promise<Waiting[]> {
  const pending = await service.store.prompts.listPending();
  const traces = new Map<string, { sessionId: string; task: string } | undefined>();
  for (const prompt of pending)
    if (!traces.has(prompt.traceId))
      traces.set(prompt.traceId, await service.store.traces.get(prompt.traceId));
  return pending.map((prompt) => {
    const trace = traces.get(prompt.traceId);
    return {
      ...promptView(prompt),
      sessionId: trace?.sessionId ?? null,
      task: trace?.task ?? null,
    } as Waiting;
  });
}

export function promptRoutes(service: RunService, announcements: Announcements): Route[] {
  return [
    defineRoute({
      method: "GET",
      path: "/prompts",
      summary: "Every approval and question waiting for an answer, oldest first, with its run's session",
      tags: ["prompts"],
      responses: { 200: Type.Object({ prompts: Type.Array(WaitingSchema) }) },
      handler: async () => ({ body: { prompts: await waiting(service) } }),
    }),
    defineRoute({
      method: "GET",
      path: "/prompts/events",
      summary:
        "What waits for a person, as server-sent events: the whole list at once and whenever it changes",
      description:
        "Each `prompts` event carries { prompts: WaitingPrompt[] } (as GET /prompts): first the list as it is, " +
        "then a new list each time a prompt appears or goes (answered, timed out, its run ended).",
      tags: ["prompts", "events"],
      auth: "bearer-or-cookie",
      responses: {
        200: {
          description: "text/event-stream: `event: prompts`, `data: { prompts: WaitingPrompt[] }`",
          schema: Type.Object({ prompts: Type.Array(WaitingSchema) }),
        },
      },
      handler: async ({ signal, openSse }) => {
        const stream = openSse();
        const done = AbortSignal.any([signal, stream.signal]);
        let sent: string | undefined;
        let timer: ReturnType<typeof setTimeout> | undefined;
        let reading = Promise.resolve();
        const read = () => {
          reading = reading.then(async () => {
            if (done.aborted) return;
            const prompts = await waiting(service);
            const ids = prompts.map((p) => `${p.id}:${p.status}`).join();
            if (ids === sent) return;
            sent = ids;
            stream.send({ event: "prompts", data: { prompts } });
          });
          // A read that failed (the store restarting) is tried again at the next announcement
          // or recheck; the chain must go on for them.
          reading = reading.catch(() => {});
        };
        const soon = () => {
          clearTimeout(timer);
          timer = setTimeout(read, SETTLE_MS);
        };
        const stop = announcements.listenAll(soon);
        const recheck = setInterval(read, RECHECK_MS);
        try {
          read();
          await new Promise<void>((resolve) => {
            if (done.aborted) resolve();
            else done.addEventListener("abort", () => resolve(), { once: true });
          });
        } finally {
          stop();
          clearInterval(recheck);
          clearTimeout(timer);
          stream.close();
        }
        return undefined;
      },
    }),
  ];
}
