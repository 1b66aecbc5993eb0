// What `reson serve` keeps and answers never holds its own bearer token (a run that comes upon
// it, in a command's output or the model's words, has it masked as serve_token) nor a secret a
// client pasted into a task's text: the task is kept with the secret's placeholder, as `reson
// run` keeps its task, in the queue, the session's title (and a title a client gives a new
// session), every GET answer and the database.
import { randomBytes } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { FakeReply, RecordedRequest } from "../support/fake-model-server.js";
import { filesUnder, scanForSecret } from "../support/secret-scan.js";
import { runServed, startServed, useServedFixture } from "../support/served-run.js";

const DEPLOY_KEY = randomBytes(24)
  .toString("base64")
  .replace(/[^A-Za-z0-9]/g, "")
  .slice(0, 28);
let serveToken = "";

/** A run that comes upon serve's token: a command prints it, the model repeats it. */
function tokenSeeingModel(request: RecordedRequest): FakeReply {
  const messages = (request.body as { messages?: Array<{ role: string }> }).messages ?? [];
  if (!messages.some((m) => m.role === "assistant"))
    return {
      toolCalls: [{ id: "call_cmd", name: "execute_command", arguments: { command: `echo ${serveToken}` } }],
    };
  return { text: `The service's token is ${serveToken}.` };
}

describe("reson serve masks its own token and a secret pasted into a task", () => {
  const f = useServedFixture(tokenSeeingModel);

  it("no answer and no stored byte holds the token a run came upon, nor the secret in the task's text", async () => {
    const home = join(f.ws.path, ".home");
    const workspace = join(f.ws.path, "app");
    mkdirSync(home, { recursive: true });
    mkdirSync(workspace, { recursive: true });
    writeFileSync(join(home, "secrets.json"), JSON.stringify({ "workspace:*": { deploy_key: DEPLOY_KEY } }), {
      mode: 0o600,
    });
    const served = await startServed(home, workspace);
    serveToken = served.headers.authorization!.slice("Bearer ".length);
    const run = await runServed(served, {
      workspace,
      provider: "openai-compatible",
      baseUrl: f.model.openaiBaseUrl,
      model: "fake-model",
      sandbox: "off",
      allow: ["execute_command"],
      task: `deploy with the key ${DEPLOY_KEY}, please`,
    });
    expect(run.status).toBe("completed");
    // The run did come upon the token: the model was sent the command's output, masked.
    const output = JSON.stringify(f.model.requests.at(-1)?.body);
    expect(output).toContain("<secret>serve_token</secret>");

    const get = async (path: string) =>
      (await fetch(`${served.url}${path}`, { headers: served.headers })).text();
    const view = JSON.parse(await get(`/runs/${run.id}`)) as { task: string; sessionId: string };
    expect(view.task).toBe("deploy with the key <secret>deploy_key</secret>, please");
    // A title given to a new session is kept the same way.
    const created = await fetch(`${served.url}/sessions`, {
      method: "POST",
      headers: served.headers,
      body: JSON.stringify({ workspace, title: `deploy ${DEPLOY_KEY}` }),
    });
    expect(created.status).toBe(201);
    const titled = (await created.json()) as { title: string };
    expect(titled.title).toBe("deploy <secret>deploy_key</secret>");
    const answers: Record<string, string> = {
      created: JSON.stringify(titled),
      run: JSON.stringify(view),
      events: JSON.stringify(run.events),
      trace: await get(`/runs/${run.id}/trace`),
      session: await get(`/sessions/${view.sessionId}`),
      sessions: await get("/sessions"),
      "session's runs": await get(`/sessions/${view.sessionId}/runs`),
    };
    const finalText = run.events.find((event) => event.type === "run_end")?.data.finalText;
    expect(finalText).toBe("The service's token is <secret>serve_token</secret>.");
    // Stopped first, so what the database holds is all on disk.
    served.process.kill("SIGTERM");
    await served.process.exited();
    const stored = filesUnder(home, (path) => path.endsWith("serve-token") || path.endsWith("secrets.json"));
    const found = [
      ...scanForSecret(serveToken, { ...answers, ...stored }).map((x) => `token in ${x.where} (${x.form})`),
      ...scanForSecret(DEPLOY_KEY, { ...answers, ...stored }).map((x) => `key in ${x.where} (${x.form})`),
    ];
    expect(found).toEqual([]);
  }, 60_000);
});
