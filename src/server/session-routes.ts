// Routes for sessions: create (idempotent with an Idempotency-Key header), list, get, and the
// runs of a session (list, start one).
import { Type } from "typebox";
import {
  CreateSessionBody,
  IdParams,
  ListSessionsQuery,
  RunViewSchema,
  SessionRunBody,
  SessionViewSchema,
} from "./api-schemas.js";
import { defineRoute, type Route } from "./router.js";
import type { RunService } from "./run-service.js";

/** The Idempotency-Key header: a repeat of the same POST gets the first answer. */
export function idempotencyKey(headers: Record<string, string | string[] | undefined>): string | undefined {
  const value = headers["idempotency-key"];
  const key = Array.isArray(value) ? value[0] : value;
  return key && key.length <= 255 ? key : undefined;
}

export function sessionRoutes(service: RunService): Route[] {
  return [
    defineRoute({
      method: "POST",
      path: "/sessions",
      summary: "Create a session in a workspace",
      tags: ["sessions"],
      body: CreateSessionBody,
      responses: { 201: SessionViewSchema },
      handler: async ({ body, req }) => ({
        status: 201,
        body: await service.createSession(body, idempotencyKey(req.headers)),
      }),
    }),
    defineRoute({
      method: "GET",
      path: "/sessions",
      summary: "List sessions, newest first",
      tags: ["sessions"],
      query: ListSessionsQuery,
      responses: { 200: Type.Object({ sessions: Type.Array(SessionViewSchema) }) },
      handler: async ({ query }) => ({
        body: {
          sessions: await service.listSessions({
            ...(query.status ? { status: query.status } : {}),
            ...(query.workspace ? { workspace: query.workspace } : {}),
            ...(query.limit ? { limit: Number(query.limit) } : {}),
          }),
        },
      }),
    }),
    defineRoute({
      method: "GET",
      path: "/sessions/:id",
      summary: "A session",
      tags: ["sessions"],
      params: IdParams,
      responses: { 200: SessionViewSchema },
      handler: async ({ params }) => ({ body: await service.getSession(params.id) }),
    }),
    defineRoute({
      method: "GET",
      path: "/sessions/:id/runs",
      summary: "A session's runs, oldest first",
      tags: ["sessions"],
      params: IdParams,
      responses: { 200: Type.Object({ runs: Type.Array(RunViewSchema) }) },
      handler: async ({ params }) => ({ body: { runs: await service.listRuns(params.id) } }),
    }),
    defineRoute({
      method: "POST",
      path: "/sessions/:id/runs",
      summary: "Start a run in a session (queued; policy decides what a busy session does)",
      tags: ["sessions", "runs"],
      params: IdParams,
      body: SessionRunBody,
      responses: { 202: RunViewSchema, 200: RunViewSchema },
      handler: async ({ params, body, req }) => {
        const { task, policy, ...spec } = body;
        const key = idempotencyKey(req.headers);
        const { run, created } = await service.startRun({
          task,
          sessionId: params.id,
          spec,
          ...(policy ? { policy } : {}),
          ...(key ? { idempotencyKey: key } : {}),
        });
        return { status: created ? 202 : 200, body: run };
      },
    }),
  ];
}
