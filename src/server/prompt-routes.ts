// What this serve waits on from a person, across its runs: the pending approvals and questions
// with the run and session they hold up, so a client (the web view's "waiting for you" badge)
// can say so from any page without opening every run's stream.
import { Type } from "typebox";
import { PromptSchema } from "./api-schemas.js";
import { defineRoute, type Route } from "./router.js";
import type { RunService } from "./run-service.js";

const WaitingSchema = Type.Object(
  {
    ...PromptSchema.properties,
    sessionId: Type.Union([Type.String(), Type.Null()], { description: "the session of the run held up" }),
    task: Type.Union([Type.String(), Type.Null()], { description: "the task of the run held up" }),
  },
  { $id: "WaitingPrompt" },
);

export function promptRoutes(service: RunService): Route[] {
  return [
    defineRoute({
      method: "GET",
      path: "/prompts",
      summary: "Every approval and question waiting for an answer, oldest first, with its run's session",
      tags: ["prompts"],
      responses: { 200: Type.Object({ prompts: Type.Array(WaitingSchema) }) },
      handler: async () => {
        const pending = await service.store.prompts.listPending();
        const traces = new Map<string, { sessionId: string; task: string } | undefined>();
        for (const prompt of pending)
          if (!traces.has(prompt.traceId))
            traces.set(prompt.traceId, await service.store.traces.get(prompt.traceId));
        return {
          body: {
            prompts: pending.map((prompt) => {
              const trace = traces.get(prompt.traceId);
              return {
                id: prompt.id,
                runId: prompt.traceId,
                kind: prompt.kind,
                status: prompt.status,
                payload: prompt.payload,
                answer: prompt.answer,
                createdAt: prompt.createdAt,
                expiresAt: prompt.expiresAt,
                sessionId: trace?.sessionId ?? null,
                task: trace?.task ?? null,
              };
            }),
          },
        };
      },
    }),
  ];
}
