// README "Service" and "Prometheus metrics": `reson serve` started as a user starts it (in the
// background here, on a free port instead of 7878), and the curl blocks typed into a user's
// shell against it, with curl failing on an HTTP error (~/.curlrc: fail-with-body) so a refused
// request fails its statement; and a worker's metrics scraped with curl.
// Placeholders: localhost:7878 is the serve's address, `01K…` the ids the API handed out,
// /home/me/… the user's home folder, 9464 a free port.
//
// Harness variables: RESON_PROVIDER=openai-compatible, RESON_BASE_URL and RESON_MODEL point
// serve's runs at the fake model server, beside cleanEnv's (test/support/cli.ts).
import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, onTestFinished } from "vitest";
import { openStore } from "../../src/store/index.js";
import type { RecordedRequest } from "../support/fake-model-server.js";
import { queueRun, waitForStatus } from "../support/queued-run.js";
import { skipWithout } from "../support/requirements.js";
import { killAllReson, startReson } from "../support/service-process.js";
import { blockByKey, shellStatements } from "./readme-blocks.js";
import { localModel, type ReadmeUser } from "./readme-user.js";
import { freePort, scenario, useModel, useShell, useUser } from "./scenario.js";

/** `reson serve` for `user` (their environment and home), stopped with the test; its address. */
async function serveFor(
  user: ReadmeUser,
  args: string[] = [],
): Promise<{ url: string; token: () => string }> {
  const serve = startReson(["serve", "--port", "0", ...args], { env: user.env, cwd: user.work });
  onTestFinished(() => killAllReson());
  const [, url] = await serve.waitFor(/"url":"(http:\/\/127\.0\.0\.1:\d+)"/);
  return { url: url!, token: () => readFileSync(join(user.home, ".reson/serve-token"), "utf8").trim() };
}

const CURL_BLOCK = "TOKEN=$(cat ~/.reson/serve-token)";

/** Polls `GET path` with the token until `done` holds for its JSON (at most ~30 s). */
async function until<T>(url: string, token: string, path: string, done: (body: T) => boolean): Promise<T> {
  for (let tries = 0; ; tries++) {
    const body = (await (
      await fetch(`${url}${path}`, { headers: { authorization: `Bearer ${token}` } })
    ).json()) as T;
    if (done(body)) return body;
    if (tries > 300) throw new Error(`${path} never got there: ${JSON.stringify(body)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const lastUserText = (request: RecordedRequest) =>
  JSON.stringify(
    ((request.body as { messages?: { role: string; content: unknown }[] }).messages ?? []).findLast(
      (m) => m.role === "user",
    )?.content ?? "",
  );

describe.skipIf(await skipWithout("curl", "README: Service"))("README: Service", () => {
  scenario("reson serve", async (block) => {
    const user = useUser();
    const port = await freePort();
    const shell = useShell(block, user).replace("reson serve", `reson serve --port ${port}`);
    const serve = await shell.background("reson serve", /"url":"http:\/\/127\.0\.0\.1:\d+"/);
    shell.end();
    const tokenFile = join(user.home, ".reson/serve-token");
    const token = readFileSync(tokenFile, "utf8").trim();
    expect(statSync(tokenFile).mode & 0o777).toBe(0o600);
    // Never printed: the log names the file that holds it, and how to read it.
    expect(serve.log()).not.toContain(token);
    expect(serve.log()).toContain(`read it with: cat ${tokenFile}`);
    const base = `http://127.0.0.1:${port}`;
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
    expect((await fetch(`${base}/sessions`)).status).toBe(401);
    expect((await fetch(`${base}/sessions`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(
      200,
    );
  });

  scenario("TOKEN=$(cat ~/.reson/serve-token)", async (block) => {
    const model = await useModel({
      respond: (request) => ({
        text: lastUserText(request).includes("two more") ? "Io, Bo." : "Miso, Pixel, Biscuit.",
      }),
    });
    const user = useUser(localModel(model));
    const { url } = await serveFor(user);
    const shell = useShell(block, user).replace("localhost:7878", url.replace("http://", ""));

    await shell.run("TOKEN=$(cat ~/.reson/serve-token)");
    await shell.run("api() {");
    const registered = await shell.run("api -X POST localhost:7878/workspaces");
    expect(JSON.parse(registered.stdout)).toMatchObject({
      name: "project",
      path: join(user.home, ".reson/workspaces/project"),
    });
    // The notes template's files, made in the new folder.
    expect(readFileSync(join(user.home, ".reson/workspaces/project/AGENTS.md"), "utf8")).toContain(
      "notebook",
    );
    const workspaces = await shell.run("api localhost:7878/workspaces");
    expect(JSON.parse(workspaces.stdout).workspaces).toEqual([
      expect.objectContaining({ id: expect.stringMatching(/^ws_/), name: "project" }),
    ]);
    const posted = JSON.parse((await shell.run("api -X POST localhost:7878/runs")).stdout) as {
      id: string;
      sessionId: string;
      status: string;
    };
    expect(posted.status).toBe("queued");
    shell.replace("runs/01K…", `runs/${posted.id}`).replace("sessions/01K…", `sessions/${posted.sessionId}`);
    const run = JSON.parse((await shell.run("api localhost:7878/runs/01K…")).stdout);
    expect(run).toMatchObject({ id: posted.id, sessionId: posted.sessionId });
    const trace = await shell.run("api localhost:7878/runs/01K…/trace");
    expect(JSON.parse(trace.stdout)).toBeTypeOf("object");
    await shell.run("api localhost:7878/runs/01K…/goals");
    const live = await shell.run("api -N localhost:7878/runs/01K…/events");
    expect(live.stdout).toContain("event: run_end");
    expect(live.stdout).toContain("Miso, Pixel, Biscuit.");
    const stored = JSON.parse(
      (await shell.run('api "localhost:7878/runs/01K…/events?format=json&after=10"')).stdout,
    ) as { events: { seq: number }[] };
    expect(stored.events.every((event) => event.seq > 10)).toBe(true);
    await shell.run("api -X POST localhost:7878/runs/01K…/cancel");
    const next = JSON.parse((await shell.run("api -X POST localhost:7878/sessions/01K…/runs")).stdout) as {
      id: string;
      sessionId: string;
    };
    expect(next.sessionId).toBe(posted.sessionId);
    const sessions = await shell.run("api localhost:7878/sessions");
    shell.end();
    // The session says which model its runs used, over HTTP as in the terminal.
    expect(JSON.parse(sessions.stdout).sessions).toEqual([
      expect.objectContaining({ id: posted.sessionId, provider: "openai-compatible", model: "fake-model" }),
    ]);
  });

  scenario("api localhost:7878/runs/01K…/prompts", async (block) => {
    const model = await useModel({
      respond: (request) => {
        const results = ((request.body as { messages?: { role: string }[] }).messages ?? []).filter(
          (m) => m.role === "tool",
        ).length;
        if (results === 0)
          return {
            toolCalls: [
              { id: "call_1", name: "write_file", arguments: { path: "colour.txt", content: "blue\n" } },
            ],
          };
        if (results === 1)
          return {
            toolCalls: [{ id: "call_2", name: "ask_human", arguments: { question: "Which colour?" } }],
          };
        return { text: "Painted it blue." };
      },
    });
    const user = useUser(localModel(model));
    const { url, token } = await serveFor(user, ["--workspace-root", user.work]);
    const shell = useShell(block, user).replace("localhost:7878", url.replace("http://", ""));
    // The previous block's first two lines: the token, and the api function.
    for (const statement of shellStatements(blockByKey(CURL_BLOCK)).slice(0, 2))
      await shell.probe(statement.text);
    // A run in the default mode, so its write waits for approval.
    const posted = await fetch(`${url}/runs`, {
      method: "POST",
      headers: { authorization: `Bearer ${token()}`, "content-type": "application/json" },
      body: JSON.stringify({ task: "paint it", workspace: user.work, permissionMode: "default" }),
    });
    expect(posted.status).toBe(202);
    const { id } = (await posted.json()) as { id: string };
    shell.replace("runs/01K…", `runs/${id}`);
    type Prompts = { prompts: { kind: string; payload: { toolCallId: string } }[] };
    await until<Prompts>(url, token(), `/runs/${id}/prompts`, (body) => body.prompts.length > 0);

    const waiting = JSON.parse((await shell.run("api localhost:7878/runs/01K…/prompts")).stdout) as Prompts;
    expect(waiting.prompts).toEqual([
      expect.objectContaining({
        kind: "permission",
        payload: expect.objectContaining({ toolCallId: "call_1", tool: "write_file" }),
      }),
    ]);
    await shell.run("api -X POST localhost:7878/runs/01K…/approvals/call_1");
    await until<Prompts>(url, token(), `/runs/${id}/prompts`, (body) =>
      body.prompts.some((p) => p.payload.toolCallId === "call_2"),
    );
    await shell.run("api -X POST localhost:7878/runs/01K…/questions/call_2");
    shell.end();
    const done = await until<{ status: string }>(
      url,
      token(),
      `/runs/${id}`,
      (body) => !["queued", "running"].includes(body.status),
    );
    expect(done.status).toBe("completed");
    expect(readFileSync(join(user.work, "colour.txt"), "utf8")).toBe("blue\n");
    expect(JSON.stringify(model.requests.at(-1)?.body)).toContain("blue");
  });
});

describe.skipIf(await skipWithout("curl", "README: Prometheus metrics"))("README: Prometheus metrics", () => {
  // The block names no database: the worker uses the user's SQLite store, where a run waits.
  scenario("reson worker --metrics-port 9464 &", async (block) => {
    const model = await useModel({ replies: [{ text: "Counted." }] });
    const user = useUser(localModel(model));
    const store = await openStore({ home: join(user.home, ".reson") });
    const runId = await queueRun(store, user.work, "count me", {
      provider: "openai-compatible",
      baseUrl: model.openaiBaseUrl,
      model: "fake-model",
    });
    const port = await freePort();
    const shell = useShell(block, user).replace("9464", String(port));
    try {
      await shell.run("reson worker --metrics-port 9464 &");
      // A user waits for the run to be done before looking.
      expect((await waitForStatus(store, runId, ["completed", "failed"])).status).toBe("completed");
    } finally {
      await store.close();
    }
    const scraped = await shell.run("curl -s 127.0.0.1:9464/metrics | grep '^reson_runs_total'");
    shell.end();
    expect(scraped.stdout).toMatch(/^reson_runs_total\{.*status="completed".*\} 1$/m);
    // What the block left running in the background ends with its shell.
    await shell.close();
    await expect(fetch(`http://127.0.0.1:${port}/metrics`)).rejects.toThrow();
  });
});
