// Routes for runs: start (a new session, or an existing one), get, cancel, the trace and goal
// tree, and the approvals and questions a run waits on.
import { Type } from "typebox";
import type { RunPromptRecord } from "../store/index.js";
import {
  ApprovalBody,
  IdParams,
  PromptParams,
  PromptSchema,
  QuestionBody,
  RunViewSchema,
  StartRunBody,
} from "./api-schemas.js";
import { defineRoute, type Route } from "./router.js";
import type { RunService } from "./run-service.js";
import { idempotencyKey } from "./session-routes.js";

/** A stored prompt as the API shows it (GET /runs/{id}/prompts, and GET /prompts with its session). */
export function promptView(prompt: RunPromptRecord) {
  return {
    id: prompt.id,
    runId: prompt.traceId,
    kind: prompt.kind,
    status: prompt.status,
    payload: prompt.payload,
    answer: prompt.answer,
    createdAt: prompt.createdAt,
    expiresAt: prompt.expiresAt,
  };
}

export function runRoutes(service: RunService): Route[] {
  return [
    defineRoute({
      method: "POST",
      path: "/runs",
      summary: "Start a run: in a new session of `workspace`, or in `sessionId`",
      tags: ["runs"],
      body: StartRunBody,
      responses: { 202: RunViewSchema, 200: RunViewSchema },
      handler: async ({ body, req }) => {
        const { task, policy, sessionId, ...spec } = body;
        const key = idempotencyKey(req.headers);
        const { run, created } = await service.startRun({
          task,
          spec,
          ...(sessionId ? { sessionId } : {}),
          ...(policy ? { policy } : {}),
          ...(key ? { idempotencyKey: key } : {}),
        });
        return { status: created ? 202 : 200, body: run };
      },
    }),
    defineRoute({
      method: "GET",
      path: "/runs/:id",
      summary: "A run: status, usage, steps",
      tags: ["runs"],
      params: IdParams,
      responses: { 200: RunViewSchema },
      handler: async ({ params }) => ({ body: await service.getRun(params.id) }),
    }),
    defineRoute({
      method: "POST",
      path: "/runs/:id/cancel",
      summary: "Cancel a run: a queued one at once, a running one at its next safe point",
      tags: ["runs"],
      params: IdParams,
      responses: { 202: RunViewSchema },
      handler: async ({ params }) => ({ status: 202, body: await service.cancelRun(params.id) }),
    }),
    defineRoute({
      method: "GET",
      path: "/runs/:id/trace",
      summary: "A run's steps (a tree through parentId) and its sub-agent runs",
      tags: ["runs"],
      params: IdParams,
      responses: {
        200: Type.Object({
          run: RunViewSchema,
          steps: Type.Array(Type.Unknown()),
          children: Type.Array(RunViewSchema),
        }),
      },
      handler: async ({ params }) => ({ body: await service.trace(params.id) }),
    }),
    defineRoute({
      method: "GET",
      path: "/runs/:id/goals",
      summary: "A run's goal tree after its last committed step",
      tags: ["runs"],
      params: IdParams,
      responses: {
        200: Type.Object({
          goals: Type.Array(Type.Unknown()),
          focusedId: Type.Union([Type.String(), Type.Null()]),
        }),
      },
      handler: async ({ params }) => ({ body: await service.goals(params.id) }),
    }),
    defineRoute({
      method: "GET",
      path: "/runs/:id/prompts",
      summary: "The approvals and questions a run waits on",
      tags: ["prompts"],
      params: IdParams,
      responses: { 200: Type.Object({ prompts: Type.Array(PromptSchema) }) },
      handler: async ({ params }) => ({
        body: { prompts: (await service.pendingPrompts(params.id)).map(promptView) },
      }),
    }),
    defineRoute({
      method: "POST",
      path: "/runs/:id/approvals/:toolCallId",
      summary: "Answer an approval: allow once, allow for the session, or deny (with a note for the model)",
      tags: ["prompts"],
      params: PromptParams,
      body: ApprovalBody,
      responses: { 200: PromptSchema },
      handler: async ({ params, body }) => ({
        body: promptView(await service.answerApproval(params.id, params.toolCallId, body)),
      }),
    }),
    defineRoute({
      method: "POST",
      path: "/runs/:id/questions/:toolCallId",
      summary: "Answer a question of ask_human",
      tags: ["prompts"],
      params: PromptParams,
      body: QuestionBody,
      responses: { 200: PromptSchema },
      handler: async ({ params, body }) => ({
        body: promptView(await service.answerQuestion(params.id, params.toolCallId, body.answer)),
      }),
    }),
  ];
}
