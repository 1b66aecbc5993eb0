// Routes for registered workspaces: list, one by id or name, and register (a new folder in the
// server's $RESON_HOME/workspaces, or one under a workspace root). Behind the same bearer
// token as every route; a run names its workspace by these ids.
import { Type } from "typebox";
import { RegisterWorkspaceBody, WorkspaceParams, WorkspaceViewSchema } from "./api-schemas.js";
import { defineRoute, type Route } from "./router.js";
import type { RunService } from "./run-service.js";

export function workspaceRoutes(service: RunService): Route[] {
  return [
    defineRoute({
      method: "GET",
      path: "/workspaces",
      summary: "Registered workspaces, most recently used first",
      tags: ["workspaces"],
      responses: { 200: Type.Object({ workspaces: Type.Array(WorkspaceViewSchema) }) },
      handler: async () => ({ body: { workspaces: await service.listWorkspaces() } }),
    }),
    defineRoute({
      method: "GET",
      path: "/workspaces/:id",
      summary: "A registered workspace, by id or name",
      tags: ["workspaces"],
      params: WorkspaceParams,
      responses: { 200: WorkspaceViewSchema },
      handler: async ({ params }) => ({ body: await service.getWorkspace(params.id) }),
    }),
    defineRoute({
      method: "POST",
      path: "/workspaces",
      summary: "Register a workspace (a new folder, or one under a workspace root) from a template",
      tags: ["workspaces"],
      body: RegisterWorkspaceBody,
      responses: { 201: WorkspaceViewSchema },
      handler: async ({ body }) => ({ status: 201, body: await service.registerWorkspace(body) }),
    }),
  ];
}
