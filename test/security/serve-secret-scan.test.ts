// What `reson serve` answers never holds a secret it was given: a value in secrets.json, the
// provider's key from the environment, an MCP server's token and the chat channel's bot token
// are planted, a run posted over HTTP has them in its task, its tool arguments and output, a
// question it asks and the model's answer (raw and in the encodings reson itself writes), and
// then every GET route serve lists in its OpenAPI document (runs, sessions, traces, events as
// JSON and as server-sent events, prompts, metrics, channels, workspaces, health, the web view's
// files) is read and scanned for each value in every common form.
import { randomBytes } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { TEST_SERVER } from "../mcp/servers.js";
import { telegramOnFakes } from "../support/channel-config.js";
import type { FakeReply, RecordedRequest } from "../support/fake-model-server.js";
import { type FakeTelegram, startFakeTelegram } from "../support/fake-telegram.js";
import { taskOf } from "../support/reply-by-task.js";
import { scanForSecret } from "../support/secret-scan.js";
import { type Served, startServed, useServedFixture } from "../support/served-run.js";
import { readSse } from "../support/sse-client.js";

/** Letters and digits only, so no shell or JSON escaping hides a form of it. */
function canary(): string {
  return randomBytes(30)
    .toString("base64")
    .replace(/[^A-Za-z0-9]/g, "")
    .slice(0, 28);
}

const SECRETS = {
  vault: canary(),
  provider: canary(),
  mcp: canary(),
  channel: `123456:${canary()}`,
};

/** The forms a model might write a value in. */
function written(value: string): string {
  return [
    value,
    Buffer.from(value).toString("base64"),
    encodeURIComponent(value),
    JSON.stringify(value),
  ].join(" ");
}

function leakyModel(request: RecordedRequest): FakeReply {
  const messages = (request.body as { messages?: Array<{ role: string }> }).messages ?? [];
  const done = messages.filter((m) => m.role === "assistant").length;
  // A server (or a proxy before it) that refuses the request quoting what it was sent.
  if (taskOf(request).startsWith("fail"))
    return { fault: "http", status: 400, message: `unexpected value ${SECRETS.mcp} in the request` };
  const others = [SECRETS.provider, SECRETS.mcp, SECRETS.channel];
  if (done === 0) {
    const command = [
      `printf '%s\\n' '<secret>deploy_key</secret>'`,
      `printf '%s' '<secret>deploy_key</secret>' | base64`,
      ...others.map((value) => `echo ${written(value).replaceAll('"', "")}`),
      `printf '%s' '${SECRETS.channel}' | base64`,
      `printf '%s' '<secret>deploy_key</secret>' > kept.txt`,
    ].join("; ");
    return {
      text: `Running it with ${written(SECRETS.mcp)}.`,
      toolCalls: [
        { id: "call_cmd", name: "execute_command", arguments: { command } },
        { id: "call_env", name: "mcp__tester__env", arguments: { name: "TESTER_TOKEN" } },
      ],
    };
  }
  if (done === 1) {
    const question = `Is ${others.map(written).join(" or ")} the one?`;
    return {
      toolCalls: [
        { id: "call_ask", name: "ask_human", arguments: { question, choices: [SECRETS.channel, "none"] } },
      ],
    };
  }
  return { text: `The values: ${[SECRETS.vault, ...others].map(written).join(", ")}.` };
}

interface Route {
  method: string;
  path: string;
}

describe("reson serve's answers and secrets", () => {
  const f = useServedFixture(leakyModel);
  let telegram: FakeTelegram;
  beforeEach(async () => {
    telegram = await startFakeTelegram({ token: SECRETS.channel });
  });
  afterEach(async () => {
    await telegram.close();
  });

  it("no GET route serves a planted secret, raw or encoded, while a run that handled them waits and after it ended", async () => {
    mkdirSync(f.ws.home, { recursive: true });
    writeFileSync(
      join(f.ws.home, "secrets.json"),
      JSON.stringify({ "workspace:*": { deploy_key: SECRETS.vault } }),
      { mode: 0o600 },
    );
    writeFileSync(
      join(f.ws.home, "config.json"),
      JSON.stringify({
        mcp: {
          servers: {
            tester: { command: process.execPath, args: [TEST_SERVER], env: { TESTER_TOKEN: SECRETS.mcp } },
          },
        },
        channels: {
          telegram: telegramOnFakes(telegram, f.model, {
            token: SECRETS.channel,
            workspace: f.ws.path,
            owner: ["42"],
          }),
        },
      }),
    );
    const served = await startServed(f.ws.home, f.ws.path, [], { RESON_API_KEY: SECRETS.provider });
    const get = (path: string, accept = "application/json") =>
      fetch(`${served.url}${path}`, { headers: { ...served.headers, accept } });

    const spec = {
      workspace: f.ws.path,
      provider: "openai-compatible",
      baseUrl: f.model.openaiBaseUrl,
      model: "fake-model",
      sandbox: "off",
      allow: ["execute_command", "mcp__tester__env"],
    };
    const posted = await fetch(`${served.url}/runs`, {
      method: "POST",
      headers: served.headers,
      body: JSON.stringify({ ...spec, task: "deploy, and tell me the keys" }),
    });
    expect(posted.status, await posted.clone().text()).toBe(202);
    const run = (await posted.json()) as { id: string; sessionId: string };

    // The run reached where the values belong: the command wrote the real one, the model had the key.
    const question = await waitFor(async () => {
      const { prompts } = (await (await get(`/runs/${run.id}/prompts`)).json()) as {
        prompts: Array<{ payload: { toolCallId: string } }>;
      };
      return prompts.find((p) => p.payload.toolCallId === "call_ask");
    });
    expect(question).toBeDefined();
    expect(JSON.stringify(f.model.requests.map((r) => r.headers))).toContain(SECRETS.provider);
    const toolResults = JSON.stringify(f.model.requests.at(-1)?.body);
    expect(toolResults).toContain("<secret>deploy_key</secret>");
    expect(toolResults).toContain("TESTER_TOKEN");

    const routes = await getRoutes(served);
    const waiting = await readAll(served, routes, run);
    // A client following the run live from here sees the answer streamed, delta by delta.
    const live = readSse(`${served.url}/runs/${run.id}/events`, served.headers, { timeoutMs: 30_000 });
    await fetch(`${served.url}/runs/${run.id}/questions/call_ask`, {
      method: "POST",
      headers: served.headers,
      body: JSON.stringify({ answer: `it is ${SECRETS.channel}` }),
    });
    await waitFor(async () => {
      const { status } = (await (await get(`/runs/${run.id}`)).json()) as { status: string };
      return status === "completed" || status === "failed" ? status : undefined;
    });
    const ended = await readAll(served, routes, run);
    const streamed = await live;
    expect(streamed.map((frame) => frame.event)).toContain("text_delta");
    ended["SSE live"] = JSON.stringify(streamed);
    // What the model wrote is there, masked: the values were in it, and no route shows them.
    const { events } = JSON.parse(ended[`GET /runs/${run.id}/events?format=json`] ?? "{}") as {
      events: Array<{ type: string; data: { finalText?: string } }>;
    };
    const finalText = events.find((e) => e.type === "run_end")?.data.finalText;
    for (const name of ["deploy_key", "provider_api_key", "TESTER_TOKEN", "telegram_token"])
      expect(finalText).toContain(`<secret>${name}</secret>`);

    // A run that fails on the provider's refusal: its error, as every route shows it.
    const failed = (await (
      await fetch(`${served.url}/runs`, {
        method: "POST",
        headers: served.headers,
        body: JSON.stringify({ ...spec, task: "fail on the first call" }),
      })
    ).json()) as { id: string; sessionId: string };
    const failure = await waitFor(async () => {
      const body = await (await get(`/runs/${failed.id}`)).text();
      return (JSON.parse(body) as { status: string }).status === "failed" ? body : undefined;
    });
    expect(failure).toContain("unexpected value");
    Object.assign(ended, await readAll(served, routes, failed));
    const found = Object.entries(SECRETS).flatMap(([name, value]) => [
      ...new Set(
        [...scanForSecret(value, waiting), ...scanForSecret(value, ended)].map(
          (finding) => `${name} in ${finding.where} (${finding.form.replace(/@\d+$/, "")})`,
        ),
      ),
    ]);
    expect(found).toEqual([]);
  }, 120_000);
});

async function waitFor<T>(probe: () => Promise<T | undefined>): Promise<T> {
  for (let tries = 0; tries < 300; tries++) {
    const found = await probe();
    if (found !== undefined) return found;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error("never came");
}

/** Every GET route serve documents, from its own OpenAPI document. */
async function getRoutes(served: Served): Promise<Route[]> {
  const document = (await (
    await fetch(`${served.url}/openapi.json`, { headers: served.headers })
  ).json()) as {
    paths: Record<string, Record<string, unknown>>;
  };
  const routes = Object.entries(document.paths).flatMap(([path, methods]) =>
    Object.keys(methods)
      .filter((method) => method === "get")
      .map((method) => ({ method, path })),
  );
  expect(routes.length).toBeGreaterThan(15);
  return routes;
}

/** Each GET route's answer (as JSON, and as server-sent events where it streams), by route. */
async function readAll(
  served: Served,
  routes: Route[],
  run: { id: string; sessionId: string },
): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  const workspaces = (await (
    await fetch(`${served.url}/workspaces`, { headers: served.headers })
  ).json()) as {
    workspaces: Array<{ id: string }>;
  };
  const files = ["index.html", "app.js", "app.js.map", "style.css"];
  for (const route of routes) {
    const ids: Record<string, string[]> = {
      id: route.path.startsWith("/sessions")
        ? [run.sessionId]
        : route.path.startsWith("/workspaces")
          ? workspaces.workspaces.map((w) => w.id)
          : [run.id],
      file: files,
    };
    const paths = expand(route.path, ids);
    for (const path of paths) {
      if (path.endsWith("/events")) {
        // A stream stays open while there is more to come: what it sent in a moment is read.
        const frames = await readSse(`${served.url}${path}`, served.headers, {
          maxFrames: 500,
          timeoutMs: 1_500,
        });
        out[`SSE ${path}`] = JSON.stringify(frames);
        if (!path.startsWith("/runs/")) continue;
      }
      const query = path.endsWith("/events") ? "?format=json" : "";
      const response = await fetch(`${served.url}${path}${query}`, { headers: served.headers });
      out[`GET ${path}${query}`] = await response.text();
    }
  }
  return out;
}

/** `path` with each `{param}` (or `:param`) replaced by each of its values. */
function expand(path: string, ids: Record<string, string[]>): string[] {
  const match = /\{(\w+)\}|:(\w+)/.exec(path);
  if (!match) return [path];
  const name = (match[1] ?? match[2])!;
  return (ids[name] ?? []).flatMap((value) => expand(path.replace(match[0], encodeURIComponent(value)), ids));
}
