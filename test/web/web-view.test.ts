// The web view of `reson serve` in a real browser (Debian's Chromium driven by playwright-core):
// sign in with the token (kept in the tab, never in the URL), open a run while it is going,
// see steps appear, approve a command from the page and see the run go on, reload mid-run and
// find every step and tool call once; read on a phone-sized screen; rewind a run's files. Screenshots are kept in a
// temp folder (their path is printed); RESON_DOCS_SCREENSHOT=<file> also writes the README's.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { registryPath, writeRegistry } from "../../src/plugins/index.js";
import { launchChromium } from "../support/chromium.js";
import { cleanEnv, type TempDir, tempDir } from "../support/cli.js";
import {
  type FakeModelServer,
  type RecordedRequest,
  startFakeModelServer,
} from "../support/fake-model-server.js";
import { taskOf } from "../support/reply-by-task.js";
import { skipWithout } from "../support/requirements.js";
import { killAllReson, startReson } from "../support/service-process.js";

/**
 * "watch": a command that needs approval, then a file listing, then (slowly) the answer; the
 * model takes a moment each step so the page sees the run grow.
 */
function scripted(request: RecordedRequest) {
  // A session's later runs carry the earlier ones as history: this run is from its last task on.
  const all = (request.body as { messages?: Array<{ role: string; content: unknown }> }).messages ?? [];
  const lastUser = all.map((m) => m.role).lastIndexOf("user");
  const messages = all.slice(lastUser);
  const done = messages.filter((m) => m.role === "assistant").length;
  const task = String(messages[0]?.content ?? taskOf(request));
  // A run that delegates to a sub-agent; each model call reports its usage (priced by the model).
  const said = JSON.stringify(messages[0]?.content ?? "");
  if (said.includes("child: name a colour")) return { text: "teal", usage: { input: 300, output: 30 } };
  if (task.startsWith("delegate")) {
    if (done === 0)
      return {
        toolCalls: [
          { id: "call_sub", name: "subagent", arguments: { mode: "delegate", task: "child: name a colour" } },
        ],
        usage: { input: 1000, output: 100 },
      };
    return { text: "The sub-agent said teal.", usage: { input: 1100, output: 20 } };
  }
  if (task.startsWith("ask")) {
    if (done === 0)
      return { toolCalls: [{ id: "call_q", name: "ask_human", arguments: { question: "Which colour?" } }] };
    const tool = messages.find((m) => m.role === "tool");
    return { text: `noted: ${JSON.stringify(tool?.content)}` };
  }
  if (task.startsWith("slow")) return { text: "too late", delayMs: 20_000 };
  if (task.startsWith("remove")) {
    if (done === 0)
      return {
        toolCalls: [{ id: "call_rm", name: "execute_command", arguments: { command: "rm notes.txt" } }],
      };
    return { text: "Removed." };
  }
  if (!task.startsWith("watch")) return { text: "ok" };
  if (done === 0)
    return {
      toolCalls: [
        {
          id: "call_cmd",
          name: "execute_command",
          arguments: { command: "printf approved-from-the-page | tee approved.txt" },
        },
      ],
      usage: { input: 1200, output: 80 },
      delayMs: 200,
    };
  if (done === 1)
    return {
      toolCalls: [{ id: "call_list", name: "list_files", arguments: { path: "." } }],
      usage: { input: 1500, output: 40 },
      delayMs: 300,
    };
  return {
    text: "All done: the command ran and the files are listed.",
    usage: { input: 1700, output: 25 },
    delayMs: 2500,
  };
}

const shots = mkdtempSync(join(tmpdir(), "reson-web-shots-"));

describe.skipIf(await skipWithout("chromium", "web view in Chromium"))("web view in Chromium", () => {
  let browser: Browser;
  let model: FakeModelServer;
  let ws: TempDir;
  let url: string;
  let token: string;

  beforeAll(async () => {
    browser = await launchChromium();
    console.log(`web view screenshots: ${shots}`);
  });
  afterAll(async () => {
    await browser?.close();
  });
  beforeEach(async () => {
    model = await startFakeModelServer({ respond: scripted });
    ws = tempDir();
    // A plugin whose entry module is missing: its runs say so, and the page shows it.
    const broken = join(ws.home, "broken-plugin");
    mkdirSync(broken, { recursive: true });
    writeFileSync(
      join(broken, "plugin.json"),
      JSON.stringify({ name: "broken-one", extensions: { "dev.reson": { entry: "./gone.js" } } }),
    );
    await writeRegistry(registryPath("user", { home: ws.home, workspace: ws.path }), [
      { name: "broken-one", root: broken, source: `path:${broken}`, enabled: true, addedAt: "" },
    ]);
    const serve = startReson(["serve", "--port", "0", "--log-format", "json", "--workspace-root", ws.path], {
      // The model of runs started from the page, which name none: this serve's configuration.
      env: cleanEnv({
        RESON_HOME: ws.home,
        RESON_MEMORY: "false",
        RESON_PROVIDER: "openai-compatible",
        RESON_BASE_URL: model.openaiBaseUrl,
        RESON_MODEL: "fake-model",
        // For runs on a priced model (the fake server answers whatever the key).
        OPENAI_API_KEY: "sk-test-0123456789",
      }),
      cwd: ws.path,
    });
    [, url] = (await serve.waitFor(/"url":"(http:\/\/127\.0\.0\.1:\d+)"/)) as unknown as [string, string];
    token = readFileSync(join(ws.home, "serve-token"), "utf8").trim();
  });
  afterEach(async () => {
    await killAllReson();
    await model.close();
    ws.remove();
  });

  async function startRun(task = "watch this run", spec: Record<string, unknown> = {}): Promise<string> {
    const response = await fetch(`${url}/runs`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify({
        task,
        workspace: ws.path,
        provider: "openai-compatible",
        baseUrl: model.openaiBaseUrl,
        model: "fake-model",
        sandbox: "off",
        allow: [],
        permissionMode: "default",
        ...spec,
      }),
    });
    return ((await response.json()) as { id: string }).id;
  }

  async function signIn(page: Page): Promise<void> {
    await page.goto(`${url}/`);
    await page.fill("#token", "not-the-token");
    await page.click("button[type=submit]");
    await page.waitForSelector("text=That token was refused.");
    await page.fill("#token", token);
    await page.click("button[type=submit]");
    await page.waitForSelector("h1:text('Sessions')");
  }

  it("shows a run live, takes an approval from the page, and survives a reload", async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const errors: string[] = [];
    page.on("pageerror", (error) => errors.push(String(error)));
    await signIn(page);
    const runId = await startRun();
    await page.goto(`${url}/#/runs/${runId}`);

    // The command waits for approval: the page offers it, and the click lets the run go on.
    const allow = page.locator("#waiting [data-waiting-call=call_cmd] button:text('Allow once')");
    await allow.waitFor({ timeout: 20_000 }).catch(async (error: unknown) => {
      await page.screenshot({ path: join(shots, "0-failed.png"), fullPage: true });
      throw new Error(
        `${String(error)}\npage: ${await page.locator("main").textContent()}\nerrors: ${errors}`,
      );
    });
    expect(await page.locator("#run-status").textContent()).toBe("running");
    expect(await page.locator("#run-notices").textContent()).toContain("plugin broken-one left out");
    await page.screenshot({ path: join(shots, "1-approval.png"), fullPage: true });
    await allow.click();
    await page.waitForSelector("[data-tool-call=call_cmd] pre.result:text('approved-from-the-page')");
    await page.waitForSelector("[data-step='2']");

    // Reload while the last model call is slow: the token stays in the tab, the stream starts
    // over, and nothing shows twice. The page's first reads start in its inline script (allowed
    // by its hash), and the script takes them: the run's events are read once.
    const eventReads: string[] = [];
    const refused: string[] = [];
    page.on("request", (request) => {
      if (request.url().includes(`/runs/${runId}/events?format=json`)) eventReads.push(request.url());
    });
    page.on("console", (message) => {
      if (message.text().includes("Content Security Policy")) refused.push(message.text());
    });
    await page.reload();
    await page.waitForSelector("[data-step='2']");
    await page.waitForSelector("#run-status:text('completed')", { timeout: 20_000 });
    expect(await page.locator("li.step").count()).toBe(3);
    expect(await page.locator("[data-tool-call=call_cmd]").count()).toBe(1);
    expect(await page.locator("[data-tool-call=call_list]").count()).toBe(1);
    expect(await page.locator("[data-tool-call=call_cmd] .facts").first().textContent()).toMatch(/^ok · /);
    expect(await page.locator("[data-tool-call=call_cmd]").textContent()).toContain("allowed by");
    expect(await page.locator(".answer").textContent()).toContain("All done");
    expect(eventReads).toHaveLength(1);
    expect(refused).toEqual([]);
    expect(await page.locator("#goal-tree").textContent()).not.toBe("(no goals yet)");
    expect(await page.locator(".chart rect.output").count()).toBe(3);
    // Each step tells what its model call saw: the context's sections.
    await page.waitForSelector("[data-step='3'] details.manifest");
    expect(await page.locator("[data-step='1'] details.manifest summary").textContent()).toMatch(
      /what the model saw: \d+ sections/,
    );
    const summary = await page.locator(".summary").textContent();
    expect(summary).toContain("4.4k in"); // 1200 + 1500 + 1700 input tokens
    // The fake model has no known price: its cost is unknown, never $0.
    expect(summary).toContain("· cost unknown");
    expect(summary).not.toContain("$0");
    expect(page.url()).not.toContain(token);
    await page.screenshot({ path: join(shots, "2-completed.png"), fullPage: true });
    if (process.env.RESON_DOCS_SCREENSHOT) await page.screenshot({ path: process.env.RESON_DOCS_SCREENSHOT });

    // The sessions list shows it; the session page links the run.
    await page.goto(`${url}/#/`);
    await page.waitForSelector("#sessions a");
    expect(await page.locator("#sessions tbody tr").count()).toBe(1);
    await page.click("#sessions a");
    await page.waitForSelector(`#runs a[href='#/runs/${runId}']`);

    // On a phone: nothing wider than the screen.
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${url}/#/runs/${runId}`);
    await page.waitForSelector("#run-status:text('completed')");
    const overflow = await page.evaluate("document.documentElement.scrollWidth - window.innerWidth");
    expect(Number(overflow)).toBeLessThanOrEqual(0);
    await page.screenshot({ path: join(shots, "3-phone.png"), fullPage: true });
    expect(errors).toEqual([]);
    await page.close();
  }, 90_000);

  it("lists the files each call changed and rewinds the run's files from the page", async () => {
    writeFileSync(join(ws.path, "notes.txt"), "keep these notes\n");
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await signIn(page);
    const runId = await startRun("remove the notes", { permissionMode: "bypass" });
    await page.goto(`${url}/#/runs/${runId}`);
    await page.waitForSelector("#run-status:text('completed')", { timeout: 20_000 });
    expect(await page.locator("[data-tool-call=call_rm] .files-changed").textContent()).toBe(
      "files changed: D notes.txt",
    );
    expect(existsSync(join(ws.path, "notes.txt"))).toBe(false);

    await page.click("#rewind-files");
    await page.waitForSelector("#rewind-plan li:text('restore notes.txt')");
    expect(await page.locator("#rewind-plan").textContent()).toContain("The conversation goes back too.");
    await page.click("#rewind-confirm");
    await page.waitForSelector("#rewind-plan div:text('Rewound: 1 path put back')");
    expect(readFileSync(join(ws.path, "notes.txt"), "utf8")).toBe("keep these notes\n");
    await page.screenshot({ path: join(shots, "4-rewound.png"), fullPage: true });
    await page.close();
  }, 60_000);

  it("starts a run in a session, answers its question and cancels another, from the page", async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await signIn(page);
    const first = await startRun("answer at once");
    let run = { sessionId: "", status: "queued" };
    while (run.status === "queued" || run.status === "running") {
      await new Promise((r) => setTimeout(r, 100));
      const response = await fetch(`${url}/runs/${first}`, { headers: { authorization: `Bearer ${token}` } });
      run = (await response.json()) as typeof run;
    }
    await page.goto(`${url}/#/sessions/${run.sessionId}`);
    await page.waitForSelector(`#runs a[href='#/runs/${first}']`);
    await page.waitForSelector("#runs .status-completed");

    await page.fill("textarea[aria-label=task]", "ask the user for a colour");
    await page.click("button:text('Start')");
    await page
      .waitForSelector("text=Question: Which colour?", { timeout: 20_000 })
      .catch(async (error: unknown) => {
        throw new Error(`${String(error)}\npage: ${await page.locator("main").textContent()}`);
      });
    await page.fill("input[aria-label=answer]", "teal");
    await page.click("button:text('Answer')");
    await page.waitForSelector("#run-status:text('completed')", { timeout: 20_000 });
    expect(await page.locator(".answer").textContent()).toContain("teal");
    expect(await page.locator(".event", { hasText: "— answered: teal" }).count()).toBe(1);

    await page.goto(`${url}/#/sessions/${run.sessionId}`);
    await page.waitForSelector("#runs");
    await page.fill("textarea[aria-label=task]", "slow task to cancel");
    await page.click("button:text('Start')");
    await page.waitForSelector("[data-step='1']", { timeout: 20_000 });
    await page.click("button:text('Cancel run')", { timeout: 10_000 }).catch(async (error: unknown) => {
      throw new Error(`${String(error)}\npage: ${await page.locator("main").textContent()}`);
    });
    await page.waitForSelector("#run-status:text-matches('aborted|cancelled')", { timeout: 20_000 });
    await page.close();
  }, 90_000);

  it("lists the registered workspaces and starts a run in one, from the page", async () => {
    const registered = await fetch(`${url}/workspaces`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify({ name: "notes", template: "notes" }),
    });
    expect(registered.status).toBe(201);
    const { id } = (await registered.json()) as { id: string };
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await signIn(page);
    await page.click("nav a:text('Workspaces')");
    await page.waitForSelector(`#workspaces tr[data-workspace='${id}']`);
    expect(await page.locator(`#workspaces tr[data-workspace='${id}']`).textContent()).toContain("notes");
    await page.selectOption("#run-workspace", id);
    await page.fill("textarea[aria-label=task]", "answer from the notes workspace");
    await page.click("button:text('Start')");
    await page.waitForSelector("#run-status:text('completed')", { timeout: 20_000 });
    expect(await page.locator(".answer").textContent()).toContain("ok");
    // The workspace's link lists its sessions: the one just started.
    await page.click("nav a:text('Workspaces')");
    await page.click(`#workspaces tr[data-workspace='${id}'] a`);
    await page.waitForSelector("#sessions tbody tr");
    expect(await page.locator("#sessions tbody tr").count()).toBe(1);
    expect(await page.locator("#sessions tbody tr").textContent()).toContain("workspaces/notes");
    await page.close();
  }, 60_000);

  it("counts the sub-agents' tokens and cost in the run's header, and says how much was theirs", async () => {
    const runId = await startRun("delegate a question", {
      provider: "openai",
      model: "gpt-4o",
      permissionMode: "acceptEdits",
      allow: ["subagent"],
    });
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await signIn(page);
    await page.goto(`${url}/#/runs/${runId}`);
    await page
      .waitForSelector("#run-status:text('completed')", { timeout: 30_000 })
      .catch(async (error: unknown) => {
        throw new Error(`${String(error)}\npage: ${await page.locator("main").textContent()}`);
      });
    // Over HTTP: the run's usage holds its sub-agent's, whose own run says what it spent.
    const headers = { authorization: `Bearer ${token}` };
    const run = (await (await fetch(`${url}/runs/${runId}`, { headers })).json()) as {
      usage: { input: number; output: number; costUsd: number };
    };
    const trace = (await (await fetch(`${url}/runs/${runId}/trace`, { headers })).json()) as {
      children: Array<{ usage: { input: number; output: number; costUsd: number } }>;
    };
    expect(run.usage).toMatchObject({ input: 2400, output: 150 });
    expect(trace.children.map((c) => c.usage)).toMatchObject([{ input: 300, output: 30 }]);
    const child = trace.children[0]!.usage;
    expect(child.costUsd).toBeGreaterThan(0);
    expect(run.usage.costUsd).toBeGreaterThan(child.costUsd);
    // On the page: the total, and the sub-agents' part of it, labelled, with the costs as stored.
    const total = (await page.locator("#run-usage").textContent()) ?? "";
    const theirs = (await page.locator("#run-subagent-usage").textContent()) ?? "";
    expect(total).toMatch(/^2\.4k in · 150 out · \$0\.\d{4}$/);
    expect(theirs).toMatch(/^incl\. sub-agents 300 in · 30 out · \$0\.\d{4}$/);
    const dollars = (text: string) => Number(/\$([\d.]+)$/.exec(text)?.[1]);
    expect(dollars(total)).toBeCloseTo(run.usage.costUsd, 3);
    expect(dollars(theirs)).toBeCloseTo(child.costUsd, 3);
    await page.screenshot({ path: join(shots, "4-subagent-usage.png"), fullPage: true });
    // The session made by serve says which model its run used.
    const session = (await (
      await fetch(`${url}/sessions/${await sessionOf(runId)}`, { headers })
    ).json()) as { provider: string; model: string };
    expect(session).toMatchObject({ provider: "openai", model: "gpt-4o" });
    await page.click(`a[href^='#/sessions/']`);
    await page.waitForSelector("#runs");
    expect(await page.locator("main").textContent()).toContain("gpt-4o");
    await page.close();
  }, 60_000);

  async function sessionOf(runId: string): Promise<string> {
    const response = await fetch(`${url}/runs/${runId}`, { headers: { authorization: `Bearer ${token}` } });
    return ((await response.json()) as { sessionId: string }).sessionId;
  }

  it("keeps data behind the token: the page opens, the API does not without it", async () => {
    const page = await fetch(`${url}/`);
    expect(page.status).toBe(200);
    expect(page.headers.get("content-security-policy")).toContain("script-src 'self'");
    expect(await page.text()).not.toContain("http"); // nothing from elsewhere
    const script = await fetch(`${url}/web/app.js`);
    expect(script.status).toBe(200);
    // Opened again, the script is not sent again (the browser keeps it, and its compiled code).
    const again = await fetch(`${url}/web/app.js`, {
      headers: { "if-none-match": script.headers.get("etag") ?? "" },
    });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe("");
    expect((await fetch(`${url}/web/..%2Fserve-token`)).status).toBe(404);
    expect((await fetch(`${url}/sessions`)).status).toBe(401);
  });
});
