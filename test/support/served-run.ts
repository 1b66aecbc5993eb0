// A `reson serve` process for a test, and one run posted to it and followed to its end: the
// shared steps of the tests that check what a service run does (plugins, MCP servers).
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, expect } from "vitest";
import { cleanEnv, type TempDir, tempDir } from "./cli.js";
import {
  type FakeModelServer,
  type FakeReply,
  type RecordedRequest,
  startFakeModelServer,
} from "./fake-model-server.js";
import { killAllReson, type ServiceProcess, startReson } from "./service-process.js";

/** A model that makes one tool call, then answers with `text` once it has seen the result. */
export function oneCallThenAnswer(
  call: { name: string; arguments: Record<string, unknown> },
  text: string,
): (request: RecordedRequest) => FakeReply {
  return (request) => {
    const messages = (request.body as { messages?: { role: string }[] }).messages ?? [];
    if (!messages.some((m) => m.role === "assistant"))
      return { toolCalls: [{ id: `call_${call.name}`, ...call }] };
    return { text };
  };
}

/** Call inside a describe block: a fake model and a temp workspace per test; serve processes killed after. */
export function useServedFixture(respond: (request: RecordedRequest) => FakeReply): {
  model: FakeModelServer;
  ws: TempDir;
} {
  const fixture = {} as { model: FakeModelServer; ws: TempDir };
  beforeEach(async () => {
    fixture.model = await startFakeModelServer({ respond });
    fixture.ws = tempDir();
  });
  afterEach(async () => {
    await killAllReson();
    await fixture.model.close();
    fixture.ws.remove();
  });
  return fixture;
}

export interface Served {
  process: ServiceProcess;
  url: string;
  headers: Record<string, string>;
}

/**
 * `reson serve` on a free port with `home` as RESON_HOME, runs allowed under `workspaceRoot`,
 * and any more flags.
 */
export async function startServed(home: string, workspaceRoot: string, more: string[] = []): Promise<Served> {
  const process = startReson(
    ["serve", "--port", "0", "--log-format", "json", "--workspace-root", workspaceRoot, ...more],
    {
      env: cleanEnv({ RESON_HOME: home }),
      cwd: workspaceRoot,
    },
  );
  const [, url] = await process.waitFor(/"url":"(http:\/\/127\.0\.0\.1:\d+)"/);
  const headers = {
    authorization: `Bearer ${readFileSync(join(home, "serve-token"), "utf8").trim()}`,
    "content-type": "application/json",
  };
  return { process, url: url!, headers };
}

export interface ServedRun {
  id: string;
  status: string;
  events: { seq: number; type: string; data: Record<string, unknown> }[];
}

/** POSTs the run, waits (at most ~20 s) for it to complete or fail, and reads its stored events. */
export async function runServed(served: Served, body: Record<string, unknown>): Promise<ServedRun> {
  const { url, headers } = served;
  const posted = await fetch(`${url}/runs`, { method: "POST", headers, body: JSON.stringify(body) });
  expect(posted.status, await posted.clone().text()).toBe(202);
  const { id } = (await posted.json()) as { id: string };
  let status = "";
  for (let tries = 0; tries < 200 && !["completed", "failed"].includes(status); tries++) {
    await new Promise((r) => setTimeout(r, 100));
    status = ((await (await fetch(`${url}/runs/${id}`, { headers })).json()) as { status: string }).status;
  }
  const { events } = (await (await fetch(`${url}/runs/${id}/events?format=json`, { headers })).json()) as {
    events: ServedRun["events"];
  };
  return { id, status, events };
}
