// `reson serve` as a user drives it with curl: a token made on first start, a run started by
// POST in a workspace, its status, its events (as JSON and as server-sent events, rejoined
// with Last-Event-ID), its trace and goal tree, approvals and questions answered by POST, and a
// busy session's second task queued, refused or interrupting, by the request's policy.
import { mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { cleanEnv, type TempDir, tempDir } from "../support/cli.js";
import {
  type FakeModelServer,
  type RecordedRequest,
  startFakeModelServer,
} from "../support/fake-model-server.js";
import { taskOf } from "../support/reply-by-task.js";
import { killAllReson, type ServiceProcess, startReson } from "../support/service-process.js";
import { readSse } from "../support/sse-client.js";
import { waitForFile } from "../support/wait-for-file.js";

interface Serve {
  process: ServiceProcess;
  url: string;
  token: string;
  call(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<Response>;
  json<T = Record<string, unknown>>(method: string, path: string, body?: unknown): Promise<T>;
}

async function startServe(home: string, cwd: string, args: string[] = []): Promise<Serve> {
  const process = startReson(["serve", "--port", "0", "--log-format", "json", ...args], {
    env: cleanEnv({ RESON_HOME: home }),
    cwd,
  });
  const [, url] = await process.waitFor(/"url":"(http:\/\/127\.0\.0\.1:\d+)"/);
  const token = readFileSync(join(home, "serve-token"), "utf8").trim();
  const call = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
    fetch(`${url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body === undefined ? {} : { "content-type": "application/json" }),
        ...headers,
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  return {
    process,
    url: url!,
    token,
    call,
    async json(method, path, body) {
      const response = await call(method, path, body);
      const text = await response.text();
      if (response.status >= 400) throw new Error(`${method} ${path}: ${response.status} ${text}`);
      return JSON.parse(text);
    },
  };
}

async function waitForRun(serve: Serve, id: string, statuses: string[], timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const run = await serve.json<{ status: string }>("GET", `/runs/${id}`);
    if (statuses.includes(run.status)) return run as Record<string, unknown> & { status: string };
    if (Date.now() > deadline) throw new Error(`run ${id} still ${run.status}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Stateless model: "steps N …" runs N commands, then answers; other tasks answer at once. */
function scripted(request: RecordedRequest) {
  const task = taskOf(request);
  const messages = (request.body as { messages?: Array<{ role: string }> }).messages ?? [];
  const done = messages.filter((m) => m.role === "assistant").length;
  const steps = Number(/^steps (\d+)/.exec(task)?.[1] ?? 0);
  if (done < steps)
    return {
      toolCalls: [
        { id: `call_${done}`, name: "execute_command", arguments: { command: `echo ${done} >> out.txt` } },
      ],
    };
  if (task.startsWith("write")) {
    if (done === 0)
      return {
        toolCalls: [
          { id: "call_w", name: "write_file", arguments: { path: "../outside.txt", content: "x" } },
        ],
      };
  }
  if (task.startsWith("wait") && done === 0) {
    const command = "echo started >> started.txt; while [ ! -f go ]; do sleep 0.05; done";
    return { toolCalls: [{ id: "call_wait", name: "execute_command", arguments: { command } }] };
  }
  if (task.startsWith("ask")) {
    if (done === 0)
      return { toolCalls: [{ id: "call_q", name: "ask_human", arguments: { question: "Which colour?" } }] };
  }
  return { text: `finished: ${task}` };
}

describe("reson serve", () => {
  let server: FakeModelServer;
  let ws: TempDir;
  let serve: Serve;
  const spec = () => ({
    workspace: ws.path,
    provider: "openai-compatible",
    baseUrl: server.openaiBaseUrl,
    model: "fake-model",
    sandbox: "off",
    allow: ["execute_command"],
  });

  beforeEach(async () => {
    server = await startFakeModelServer({ respond: scripted });
    ws = tempDir();
    serve = await startServe(ws.home, ws.path, ["--workspace-root", ws.path]);
  });
  afterEach(async () => {
    await killAllReson();
    await server.close();
    ws.remove();
  });

  it("makes a token on first start (mode 0600) and refuses calls without it", async () => {
    expect(statSync(join(ws.home, "serve-token")).mode & 0o777).toBe(0o600);
    expect((await fetch(`${serve.url}/healthz`)).status).toBe(200);
    expect((await fetch(`${serve.url}/sessions`)).status).toBe(401);
    const wrong = await fetch(`${serve.url}/sessions`, { headers: { authorization: "Bearer nope" } });
    expect(wrong.status).toBe(401);
    const page = await fetch(`${serve.url}/sessions`, {
      headers: { authorization: `Bearer ${serve.token}`, origin: "http://evil.example" },
    });
    expect(page.status).toBe(403);
    // Never shown: the log names the file and how to read it, once, when it was made.
    const tokenFile = join(ws.home, "serve-token");
    const made = serve.process
      .stderr()
      .split("\n")
      .filter((line) => line.includes("a new token was made"));
    expect(made).toHaveLength(1);
    expect(JSON.parse(made[0]!)).toMatchObject({
      level: "info",
      message: `a new token was made and saved in ${tokenFile} (mode 0600); read it with: cat ${tokenFile}`,
      tokenFile,
    });
    const restarted = await startServe(ws.home, ws.path);
    expect(restarted.token).toBe(serve.token);
    await fetch(`${restarted.url}/sessions`, { headers: { authorization: `Bearer ${serve.token}` } });
    await fetch(`${restarted.url}/sessions`, { headers: { authorization: `Bearer ${serve.token}x` } });
    await fetch(`${restarted.url}/nowhere?token=${serve.token}`, {
      headers: { authorization: `Bearer ${serve.token}` },
    });
    restarted.process.kill();
    await restarted.process.exited();
    expect(restarted.process.stderr()).not.toContain("a new token was made");
    for (const { stderr, stdout } of [serve.process, restarted.process])
      expect(stderr() + stdout()).not.toContain(serve.token);
  });

  it("refuses a run in a folder neither registered nor under a workspace root, and runs in a workspace registered over HTTP, named by id or name", async () => {
    const elsewhere = tempDir();
    try {
      const refused = await serve.call("POST", "/runs", {
        task: "steps 1 then answer",
        ...spec(),
        workspace: elsewhere.path,
      });
      expect(refused.status).toBe(403);
      const { error } = (await refused.json()) as { error: { code: string; message: string; hint: string } };
      expect(error.code).toBe("forbidden");
      expect(error.message).toContain(
        `${elsewhere.path} is not a registered workspace, nor under a workspace root`,
      );
      expect(error.hint).toContain("GET /workspaces");
      expect((await serve.call("POST", "/sessions", { workspace: elsewhere.path })).status).toBe(403);
      expect((await serve.call("POST", "/workspaces", { name: "out", path: elsewhere.path })).status).toBe(
        403,
      );
      expect((await fetch(`${serve.url}/workspaces`)).status).toBe(401);

      const registered = await serve.json<{ id: string; name: string; path: string }>("POST", "/workspaces", {
        name: "notes",
        template: "notes",
      });
      expect(registered.id).toMatch(/^ws_/);
      expect(registered.path).toBe(join(ws.home, "workspaces", "notes"));
      expect(readFileSync(join(registered.path, "AGENTS.md"), "utf8")).toContain("notebook");
      const run = await serve.json<{ id: string; sessionId: string }>("POST", "/runs", {
        task: "steps 1 then answer",
        ...spec(),
        workspace: registered.id,
      });
      expect((await waitForRun(serve, run.id, ["completed", "failed"])).status).toBe("completed");
      expect(readFileSync(join(registered.path, "out.txt"), "utf8")).toBe("0\n");
      const session = await serve.json<{ workspace: string }>("GET", `/sessions/${run.sessionId}`);
      expect(session.workspace).toBe(registered.path);
      const { workspaces } = await serve.json<{
        workspaces: Array<{ id: string; lastUsedAt: number | null }>;
      }>("GET", "/workspaces");
      expect(workspaces.map((w) => w.id)).toEqual([registered.id]);
      expect(workspaces[0]!.lastUsedAt).toBeGreaterThan(0);
      expect((await serve.call("POST", "/sessions", { workspace: "notes" })).status).toBe(201);
      const inNotes = await serve.json<{ sessions: Array<{ workspace: string }> }>(
        "GET",
        "/sessions?workspace=notes",
      );
      expect(inNotes.sessions.map((x) => x.workspace)).toEqual([registered.path, registered.path]);
      const unknown = await serve.call("POST", "/sessions", { workspace: "nothing-here" });
      expect(unknown.status).toBe(404);
      expect((await serve.json<{ name: string }>("GET", `/workspaces/${registered.id}`)).name).toBe("notes");
    } finally {
      elsewhere.remove();
    }
  });

  it("takes workspace roots from the user's own config file, never from a project's, and by default accepts no raw path", async () => {
    const bare = tempDir();
    const project = join(bare.path, "project");
    try {
      mkdirSync(join(bare.path, ".reson"), { recursive: true });
      mkdirSync(project);
      // A project's config cannot widen what requests may reach.
      writeFileSync(
        join(bare.path, ".reson", "config.json"),
        JSON.stringify({ serve: { workspaceRoots: ["/"] } }),
      );
      const closed = await startServe(bare.home, bare.path);
      const refused = await closed.call("POST", "/sessions", { workspace: project });
      expect(refused.status).toBe(403);
      expect(((await refused.json()) as { error: { hint: string } }).error.hint).toContain(
        "--workspace-root",
      );
      closed.process.kill();
      await closed.process.exited();

      writeFileSync(
        join(bare.home, "config.json"),
        JSON.stringify({ serve: { workspaceRoots: [bare.path] } }),
      );
      const open = await startServe(bare.home, bare.path);
      expect((await open.call("POST", "/sessions", { workspace: project })).status).toBe(201);
      expect((await open.call("POST", "/sessions", { workspace: ws.path })).status).toBe(403);
    } finally {
      bare.remove();
    }
  });

  it("runs a task posted over HTTP and serves its status, events, trace and goals", async () => {
    const run = await serve.json<{ id: string; status: string; sessionId: string }>("POST", "/runs", {
      task: "steps 2 then answer",
      ...spec(),
    });
    expect(["queued", "running"]).toContain(run.status);
    const done = await waitForRun(serve, run.id, ["completed", "failed"]);
    expect(done.status).toBe("completed");
    expect(done.steps).toBe(3);
    expect(readFileSync(join(ws.path, "out.txt"), "utf8")).toBe("0\n1\n");

    const { events } = await serve.json<{ events: Array<{ seq: number; type: string }> }>(
      "GET",
      `/runs/${run.id}/events?format=json`,
    );
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
    expect(events[0]?.type).toBe("run_start");
    expect(events.at(-1)?.type).toBe("run_end");
    expect(events.filter((e) => e.type === "tool_result")).toHaveLength(2);
    expect(events.some((e) => e.type === "text_delta")).toBe(false);
    // The run ended: its page has an ETag, and asking again with it sends no body.
    const first = await serve.call("GET", `/runs/${run.id}/events?format=json`);
    const etag = first.headers.get("etag");
    expect(etag).toMatch(/^"[0-9a-z]+-0-[0-9a-z]+"$/);
    expect(first.headers.get("cache-control")).toBe("private, no-cache");
    const again = await serve.call("GET", `/runs/${run.id}/events?format=json`, undefined, {
      "if-none-match": etag!,
    });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe("");
    const otherPage = await serve.call("GET", `/runs/${run.id}/events?format=json&after=2`, undefined, {
      "if-none-match": etag!,
    });
    expect(otherPage.status).toBe(200);
    expect(otherPage.headers.get("etag")).not.toBe(etag);

    const trace = await serve.json<{ steps: Array<{ kind: string }> }>("GET", `/runs/${run.id}/trace`);
    expect(trace.steps.filter((s) => s.kind === "tool_call")).toHaveLength(2);
    const goals = await serve.json<{ goals: Array<{ title: string }> }>("GET", `/runs/${run.id}/goals`);
    expect(goals.goals.length).toBeGreaterThan(0);
    const runs = await serve.json<{ runs: Array<{ id: string }> }>("GET", `/sessions/${run.sessionId}/runs`);
    expect(runs.runs.map((r) => r.id)).toEqual([run.id]);

    // As server-sent events: ids are the seqs; a client that rejoins after seq 3 gets 4.. once.
    const all = await readSse(`${serve.url}/runs/${run.id}/events`, {
      authorization: `Bearer ${serve.token}`,
    });
    expect(all.map((f) => f.id)).toEqual(events.map((e) => String(e.seq)));
    const rest = await readSse(`${serve.url}/runs/${run.id}/events`, {
      authorization: `Bearer ${serve.token}`,
      "last-event-id": "3",
    });
    expect(rest.map((f) => Number(f.id))).toEqual(events.slice(3).map((e) => e.seq));
  });

  it("gives a client that drops and rejoins 200 times every event exactly once, in order", async () => {
    const run = await serve.json<{ id: string }>("POST", "/runs", {
      task: "steps 40 reconnecting",
      ...spec(),
    });
    const seen: Array<{ id: number; event: string; data: Record<string, unknown> }> = [];
    let reconnects = 0;
    for (; reconnects < 1000; reconnects++) {
      const last = seen.at(-1)?.id;
      // Drop after 0–2 frames: at once, mid-stream, or after the run's end.
      const maxFrames = Math.floor(Math.random() * 3);
      const frames = await readSse(
        `${serve.url}/runs/${run.id}/events`,
        {
          authorization: `Bearer ${serve.token}`,
          ...(last !== undefined ? { "last-event-id": String(last) } : {}),
        },
        maxFrames === 0 ? { maxFrames: 1, timeoutMs: 50 } : { maxFrames, timeoutMs: 20_000 },
      ).catch((error: unknown) => {
        if (maxFrames === 0) return [];
        throw error;
      });
      for (const frame of frames) {
        if (frame.id === undefined) continue; // live text: not numbered, not replayed
        seen.push({ id: Number(frame.id), event: frame.event ?? "", data: JSON.parse(frame.data) });
      }
      if (seen.at(-1)?.event === "run_end" && reconnects >= 200) break;
    }
    expect(reconnects).toBeGreaterThanOrEqual(200);
    expect(seen.map((e) => e.id)).toEqual(seen.map((_, i) => i + 1));
    const { events } = await serve.json<{ events: Array<{ seq: number; type: string }> }>(
      "GET",
      `/runs/${run.id}/events?format=json&limit=5000`,
    );
    expect(seen.map((e) => e.event)).toEqual(events.map((e) => e.type));
    const stored = await serve.json<{ status: string; steps: number }>("GET", `/runs/${run.id}`);
    expect(seen.at(-1)?.data).toMatchObject({ type: "run_end", status: stored.status, steps: stored.steps });
    expect(stored.status).toBe("completed");
  }, 120_000);

  it("refuses a body over the limit, a foreign page, and a public address without a chosen token", async () => {
    const big = await serve.call("POST", "/runs", { task: "x".repeat(2 * 1024 * 1024), ...spec() });
    expect(big.status).toBe(413);
    const bad = await serve.call("POST", "/runs", { task: "" });
    expect(bad.status).toBe(400);
    const open = startReson(["serve", "--host", "0.0.0.0", "--port", "0"], {
      env: cleanEnv({ RESON_HOME: ws.home }),
      cwd: ws.path,
    });
    const exit = await open.exited();
    expect(exit.code).toBe(2);
    expect(open.stderr()).toContain("will not listen on 0.0.0.0");
  });

  it("asks for approval over HTTP, and the run goes on with the answer", async () => {
    const ask = await serve.json<{ id: string }>("POST", "/runs", {
      task: "steps 1 with approval",
      ...spec(),
      allow: [],
      permissionMode: "default",
    });
    let prompts: Array<{ id: string; kind: string; payload: { toolCallId: string; tool: string } }> = [];
    for (let i = 0; i < 50 && prompts.length === 0; i++) {
      prompts = (await serve.json<{ prompts: typeof prompts }>("GET", `/runs/${ask.id}/prompts`)).prompts;
      if (prompts.length === 0) await new Promise((r) => setTimeout(r, 100));
    }
    expect(prompts).toHaveLength(1);
    expect(prompts[0]!.payload.tool).toBe("execute_command");
    await serve.json("POST", `/runs/${ask.id}/approvals/${prompts[0]!.payload.toolCallId}`, {
      decision: "allow_once",
    });
    const done = await waitForRun(serve, ask.id, ["completed", "failed"]);
    expect(done.status).toBe("completed");
    const { events } = await serve.json<{ events: Array<{ type: string; data: Record<string, unknown> }> }>(
      "GET",
      `/runs/${ask.id}/events?format=json`,
    );
    const request = events.find((e) => e.type === "permission_request");
    const decision = events.find((e) => e.type === "permission_decision");
    expect(request?.data.tool).toBe("execute_command");
    expect(decision?.data).toMatchObject({
      decision: "allow_once",
      by: "user",
      answeredBy: { channel: "http" },
    });
    expect(readFileSync(join(ws.path, "out.txt"), "utf8")).toBe("0\n");
    // Answered once: a second answer is refused.
    const again = await serve.call("POST", `/runs/${ask.id}/approvals/${prompts[0]!.payload.toolCallId}`, {
      decision: "deny",
    });
    expect(again.status).toBe(404);
  });

  it("denies an approval nobody answers once its time is up, and the run goes on", async () => {
    const quick = await startServe(ws.home, ws.path, ["--prompt-timeout", "1s", "--workspace-root", ws.path]);
    const run = await quick.json<{ id: string }>("POST", "/runs", {
      task: "steps 1 unanswered",
      ...spec(),
      allow: [],
      permissionMode: "default",
    });
    const done = await waitForRun(quick, run.id, ["completed", "failed"]);
    expect(done.status).toBe("completed");
    const { events } = await quick.json<{ events: Array<{ type: string; data: Record<string, unknown> }> }>(
      "GET",
      `/runs/${run.id}/events?format=json`,
    );
    expect(events.find((e) => e.type === "permission_decision")?.data).toMatchObject({
      decision: "deny",
      by: "timeout",
    });
    const result = events.find((e) => e.type === "tool_result")?.data;
    expect(result).toMatchObject({ ok: false });
    expect(JSON.stringify(result)).toContain("nobody answered");
  });

  it("answers ask_human over HTTP", async () => {
    const run = await serve.json<{ id: string }>("POST", "/runs", { task: "ask the user", ...spec() });
    let prompts: Array<{ kind: string; payload: { toolCallId: string; question: string } }> = [];
    for (let i = 0; i < 200 && prompts.length === 0; i++) {
      prompts = (await serve.json<{ prompts: typeof prompts }>("GET", `/runs/${run.id}/prompts`)).prompts;
      if (prompts.length === 0) await new Promise((r) => setTimeout(r, 100));
    }
    expect(prompts[0]).toMatchObject({ kind: "question", payload: { question: "Which colour?" } });
    await serve.json("POST", `/runs/${run.id}/questions/${prompts[0]!.payload.toolCallId}`, {
      answer: "blue",
    });
    expect((await waitForRun(serve, run.id, ["completed", "failed"])).status).toBe("completed");
    const modelSaw = JSON.stringify(server.requests.at(-1)?.body);
    expect(modelSaw).toContain("blue");
  });

  it("interrupts a session's running run for a new task, and cancels a run by POST", async () => {
    const first = await serve.json<{ id: string; sessionId: string }>("POST", "/runs", {
      task: "wait for go",
      ...spec(),
    });
    const started = join(ws.path, "started.txt");
    await waitForFile(started);
    const next = await serve.json<{ id: string }>("POST", `/sessions/${first.sessionId}/runs`, {
      task: "steps 1 after the interruption",
      policy: "interrupt",
    });
    expect((await waitForRun(serve, first.id, ["cancelled", "completed", "failed"])).status).toBe(
      "cancelled",
    );
    expect((await waitForRun(serve, next.id, ["completed", "failed"])).status).toBe("completed");
    const stopped = await serve.json<{ traceStatus: string }>("GET", `/runs/${first.id}`);
    expect(stopped.traceStatus).toBe("aborted");

    const queuedBehind = await serve.json<{ id: string; sessionId: string }>("POST", "/runs", {
      task: "wait again",
      ...spec(),
    });
    const behind = await serve.json<{ id: string; status: string }>(
      "POST",
      `/sessions/${queuedBehind.sessionId}/runs`,
      {
        task: "steps 1 never",
      },
    );
    expect(behind.status).toBe("queued");
    const cancelled = await serve.json<{ status: string }>("POST", `/runs/${behind.id}/cancel`);
    expect(cancelled.status).toBe("cancelled");
    await serve.json("POST", `/runs/${queuedBehind.id}/cancel`);
    expect((await waitForRun(serve, queuedBehind.id, ["cancelled", "completed", "failed"])).status).toBe(
      "cancelled",
    );
    expect(server.requests.some((r) => taskOf(r) === "steps 1 never")).toBe(false);
  });

  it("finishes a run after serve was killed in the middle of it and started again", async () => {
    const run = await serve.json<{ id: string }>("POST", "/runs", {
      task: "wait for go, then die",
      ...spec(),
    });
    const started = join(ws.path, "started.txt");
    await waitForFile(started);
    serve.process.kill("SIGKILL");
    await serve.process.exited();
    writeFileSync(join(ws.path, "go"), "");
    // The lease's holder is gone from this machine: the new serve takes the run at once, not
    // after the lease's 30 s.
    const again = await startServe(ws.home, ws.path);
    const done = await waitForRun(again, run.id, ["completed", "failed"], 20_000);
    expect(done.status).toBe("completed");
    expect(done.attempts).toBe(2);
    const { events } = await again.json<{
      events: Array<{ seq: number; type: string; data: { resumed?: boolean } }>;
    }>("GET", `/runs/${run.id}/events?format=json`);
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
    expect(events.filter((e) => e.type === "run_start").map((e) => e.data.resumed)).toEqual([false, true]);
  });

  it("queues a busy session's next task, refuses it with reject, and repeats nothing for a repeated key", async () => {
    const first = await serve.json<{ id: string; sessionId: string }>("POST", "/runs", {
      task: "steps 3 slow",
      ...spec(),
    });
    const second = await serve.call(
      "POST",
      `/sessions/${first.sessionId}/runs`,
      { task: "steps 1 next", ...spec(), workspace: undefined },
      { "idempotency-key": "k-1" },
    );
    expect(second.status).toBe(202);
    const repeat = await serve.call(
      "POST",
      `/sessions/${first.sessionId}/runs`,
      { task: "steps 1 next", ...spec(), workspace: undefined },
      { "idempotency-key": "k-1" },
    );
    expect(repeat.status).toBe(200);
    const secondRun = (await second.json()) as { id: string };
    expect(((await repeat.json()) as { id: string }).id).toBe(secondRun.id);
    const rejected = await serve.call("POST", `/sessions/${first.sessionId}/runs`, {
      task: "steps 1 rejected",
      policy: "reject",
    });
    expect(rejected.status).toBe(409);
    expect((await waitForRun(serve, first.id, ["completed", "failed"])).status).toBe("completed");
    expect((await waitForRun(serve, secondRun.id, ["completed", "failed"])).status).toBe("completed");
    const runs = await serve.json<{ runs: Array<{ id: string }> }>(
      "GET",
      `/sessions/${first.sessionId}/runs`,
    );
    expect(runs.runs.map((r) => r.id)).toEqual([first.id, secondRun.id]);
    // The second run saw the first one's conversation (same session).
    const secondRequest = server.requests.find(
      (r) => taskOf(r) === "steps 3 slow" && JSON.stringify(r.body).includes("steps 1 next"),
    );
    expect(secondRequest).toBeDefined();
  });
});
