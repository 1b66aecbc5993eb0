// A `reson serve` over the fake model server with the runs the web view's tests, screenshots
// (scripts/web-screenshots.mjs) and first-paint benchmark (bench/web-first-paint.mjs) look at:
// a showcase run with goals, two sub-agents, a file edit that waits for approval and a final
// answer that streams slowly; a run of N quick steps; a run whose answer streams word by word.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { cleanEnv, type TempDir, tempDir } from "./cli.js";
import {
  type FakeModelServer,
  type FakeReply,
  type RecordedRequest,
  startFakeModelServer,
} from "./fake-model-server.js";
import { type ServiceProcess, startReson } from "./service-process.js";

type Message = { role: string; content: unknown };

/** The messages of the run asking, from its task on (a session's later runs carry earlier ones). */
function runMessages(request: RecordedRequest): Message[] {
  const all = (request.body as { messages?: Message[] }).messages ?? [];
  const firstUser = all.findIndex((m) => m.role === "user");
  return all.slice(Math.max(firstUser, 0));
}

export const NOTES_BEFORE = "# Notes\n\nThe retry loop lives in src/retry.ts.\nIt waits 1 s between tries.\n";
const words = (text: string) => text.split(" ");

export const SHOWCASE_TASK = "showcase: tidy the notes and check the retry settings";
const FINAL_ANSWER =
  "The notes now say where the retry loop lives and how long it waits: three tries, backing off from 1 s to 4 s. Both sub-agents agree the tests cover the back-off; nothing else needed changing.";

function showcase(done: number, slowAnswer: boolean): FakeReply {
  const step = (reply: FakeReply, delayMs: number) => ({ ...reply, delayMs }) as FakeReply;
  switch (done) {
    case 0:
      return step(
        {
          toolCalls: [
            { id: "g_add1", name: "goal", arguments: { action: "add", title: "Find the retry settings" } },
            {
              id: "g_add2",
              name: "goal",
              arguments: { action: "add", title: "Update the notes", parent: "root" },
            },
          ],
          usage: { input: 2400, output: 140 },
        },
        450,
      );
    case 1:
      return step(
        {
          toolCalls: [{ id: "ls", name: "list_files", arguments: { path: "." } }],
          usage: { input: 3100, output: 60 },
        },
        350,
      );
    case 2:
      return step(
        {
          toolCalls: [
            {
              id: "sub_tests",
              name: "subagent",
              arguments: { mode: "delegate", task: "child tests: do the tests cover the back-off?" },
            },
          ],
          usage: { input: 3900, output: 110 },
        },
        400,
      );
    case 3:
      return step(
        {
          toolCalls: [
            {
              id: "sub_usage",
              name: "subagent",
              arguments: { mode: "delegate", task: "child usage: where is retry configured?" },
            },
          ],
          usage: { input: 4700, output: 95 },
        },
        380,
      );
    case 4:
      return step(
        {
          toolCalls: [
            {
              id: "g_done1",
              name: "goal",
              arguments: { action: "done", id: "g1", summary: "Three tries, 1 s to 4 s." },
            },
            { id: "g_focus2", name: "goal", arguments: { action: "focus", id: "g2" } },
          ],
          usage: { input: 5200, output: 70 },
        },
        300,
      );
    case 5:
      return step(
        {
          toolCalls: [
            {
              id: "edit_notes",
              name: "edit_file",
              arguments: {
                path: "NOTES.md",
                old_string: "It waits 1 s between tries.\n",
                new_string:
                  "It tries three times, waiting 1 s, then 2 s, then 4 s.\nThe tests in test/retry.test.ts cover the back-off.\n",
              },
            },
          ],
          usage: { input: 5900, output: 180 },
        },
        500,
      );
    case 6:
      return step(
        {
          toolCalls: [
            {
              id: "g_done2",
              name: "goal",
              arguments: { action: "done", id: "g2", summary: "Notes updated." },
            },
          ],
          usage: { input: 6400, output: 60 },
        },
        300,
      );
    default:
      return {
        text: FINAL_ANSWER,
        usage: { input: 6900, output: 210 },
        delayMs: 300,
        ...(slowAnswer ? { chunkDelayMs: 180 } : {}),
      } as FakeReply;
  }
}

function child(said: string, done: number): FakeReply {
  if (done === 0)
    return {
      toolCalls: [{ id: "c_ls", name: "list_files", arguments: { path: "." } }],
      usage: { input: 900, output: 40 },
      delayMs: 250,
    };
  return {
    text: said.includes("child tests")
      ? "Yes: test/retry.test.ts checks each wait."
      : "src/retry.ts, maxAttempts 3.",
    usage: { input: 1200, output: 35 },
    delayMs: 300,
  };
}

export const NESTED_TASK = "nested: ask a sub-agent to list the files slowly";

/**
 * A run whose sub-agent ("nest one") takes five slow steps: long enough for a page to see its
 * bars grow live. (Sub-agents never start sub-agents: one level is all the runtime makes.)
 */
function nestedReply(said: string, done: number): FakeReply | undefined {
  if (said.includes("nest one:"))
    return done < 4
      ? { toolCalls: [{ id: `deep_${done}`, name: "list_files", arguments: { path: "." } }], delayMs: 900 }
      : { text: "deep done", delayMs: 900 };
  if (!said.includes("nested:")) return undefined;
  if (done > 0) return { text: "all done" };
  return {
    toolCalls: [
      {
        id: "sub_nest",
        name: "subagent",
        arguments: { mode: "delegate", task: "nest one: list the files slowly" },
      },
    ],
    delayMs: 100,
  };
}

export interface ViewerModelOptions {
  /** The showcase's last answer streams a word every 180 ms. */
  slowAnswer?: boolean;
}

/**
 * The fake model's answers, by the task of the run asking and how many calls it made before
 * (counted here: the goal view folds a closed goal's turns out of what the model is sent, so
 * the turns in a request do not say how far the run got). Tasks are told apart by their text.
 */
export function viewerReply(options: ViewerModelOptions = {}) {
  const calls = new Map<string, number>();
  return (request: RecordedRequest): FakeReply => {
    const messages = runMessages(request);
    const said = JSON.stringify(messages[0]?.content ?? "");
    const done = calls.get(said) ?? 0;
    calls.set(said, done + 1);
    if (said.includes("child ")) return child(said, done);
    const nested = nestedReply(said, done);
    if (nested) return nested;
    if (said.includes("showcase:")) return showcase(done, options.slowAnswer === true);
    const long = /long run of (\d+) steps/.exec(said);
    if (long) {
      if (done + 1 >= Number(long[1])) return { text: "done", usage: { input: 1000 + done, output: 5 } };
      return {
        toolCalls: [{ id: `s${done}`, name: "list_files", arguments: { path: "." } }],
        usage: { input: 1000 + done * 20, output: 12 },
      };
    }
    if (said.includes("stream slowly"))
      return {
        text: words(
          "one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen",
        ).join(" "),
        chunkDelayMs: 250,
        delayMs: 100,
      };
    if (said.includes("write notes")) {
      if (done === 0)
        return {
          toolCalls: [
            {
              id: "write_notes",
              name: "write_file",
              arguments: { path: "NOTES.md", content: `${NOTES_BEFORE}Retries: 3.\n` },
            },
          ],
        };
      const tool = messages.find((m) => m.role === "tool");
      return { text: `after the approval: ${JSON.stringify(tool?.content ?? "")}` };
    }
    return { text: "ok" };
  };
}

export interface ViewerServe {
  url: string;
  token: string;
  workspace: TempDir;
  model: FakeModelServer;
  serve: ServiceProcess;
  api<T>(method: string, path: string, body?: unknown): Promise<T>;
  /** Starts a run in the workspace on the fake model; returns its id. */
  startRun(task: string, spec?: Record<string, unknown>): Promise<string>;
  /** Waits until the run is no longer queued or running (or `until` says so). */
  waitForRun(
    id: string,
    until?: (run: { status: string; steps: number }) => boolean,
    timeoutMs?: number,
  ): Promise<{ status: string; sessionId: string; steps: number }>;
  close(): Promise<void>;
}

export async function startViewerServe(options: ViewerModelOptions = {}): Promise<ViewerServe> {
  const model = await startFakeModelServer({ respond: viewerReply(options) });
  const workspace = tempDir("reson-viewer-");
  writeFileSync(join(workspace.path, "NOTES.md"), NOTES_BEFORE);
  const serve = startReson(
    ["serve", "--port", "0", "--log-format", "json", "--workspace-root", workspace.path],
    {
      env: cleanEnv({
        RESON_HOME: workspace.home,
        RESON_MEMORY: "false",
        RESON_PROVIDER: "openai-compatible",
        RESON_BASE_URL: model.openaiBaseUrl,
        RESON_MODEL: "fake-model",
        OPENAI_API_KEY: "sk-test-0123456789",
      }),
      cwd: workspace.path,
    },
  );
  const [, url] = (await serve.waitFor(/"url":"(http:\/\/127\.0\.0\.1:\d+)"/)) as unknown as [string, string];
  const token = readFileSync(join(workspace.home, "serve-token"), "utf8").trim();
  async function api<T>(method: string, path: string, body?: unknown): Promise<T> {
    const response = await fetch(`${url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body === undefined ? {} : { "content-type": "application/json" }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    if (!response.ok) throw new Error(`${method} ${path}: HTTP ${response.status} ${await response.text()}`);
    return (await response.json()) as T;
  }
  return {
    url,
    token,
    workspace,
    model,
    serve,
    api,
    async startRun(task, spec = {}) {
      const run = await api<{ id: string }>("POST", "/runs", {
        task,
        workspace: workspace.path,
        provider: "openai-compatible",
        baseUrl: model.openaiBaseUrl,
        model: "fake-model",
        sandbox: "off",
        permissionMode: "default",
        ...spec,
      });
      return run.id;
    },
    async waitForRun(
      id,
      until = (run) => run.status !== "queued" && run.status !== "running",
      timeoutMs = 60_000,
    ) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const run = await api<{ status: string; sessionId: string; steps: number }>("GET", `/runs/${id}`);
        if (until(run)) return run;
        if (Date.now() > deadline) throw new Error(`run ${id} still ${run.status} after ${timeoutMs} ms`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    },
    async close() {
      serve.kill("SIGTERM");
      await Promise.race([serve.exited(), new Promise((resolve) => setTimeout(resolve, 5000))]);
      serve.kill("SIGKILL");
      await model.close();
      workspace.remove();
    },
  };
}
