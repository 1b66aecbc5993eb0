// The web view of `reson serve` showing text an attacker wrote (a web page or file the model
// read steers its next call): in Chromium, with the page's policy bypassed so that markup, had
// it become markup, would run. Markup stays text; a command that waits for approval reads as
// the command that would run (a bidirectional override or an escape sequence in it is written
// out, never applied).
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
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

const MARKUP = `<img src=x onerror="document.title='pwned'"><script>document.title='pwned'</script>`;
/** Reads "printf ok # ok" with U+202E applied; runs `rm -rf ko` first. */
const SPOOFED = "rm -rf ko; printf ok #\u202eko ftnirp\u202c \u001b[2J";

/** A question's choices: one reads "keep it all" with U+202E applied, one holds ", ". */
const CHOICES = ["wipe the disk #\u202ella ti peek", "yes, and the backups"];

function scripted(request: RecordedRequest) {
  const messages = (request.body as { messages?: Array<{ role: string }> }).messages ?? [];
  const done = messages.filter((m) => m.role === "assistant").length;
  if (taskOf(request).startsWith("ask")) {
    if (done > 0) return { text: "asked" };
    const question = { question: "What now?", choices: CHOICES };
    return { toolCalls: [{ id: "call_ask", name: "ask_human", arguments: question }] };
  }
  if (done === 0)
    return { toolCalls: [{ id: "call_spoof", name: "execute_command", arguments: { command: SPOOFED } }] };
  return { text: `done ${MARKUP}` };
}

describe.skipIf(await skipWithout("chromium", "web view in Chromium"))(
  "the web view and hostile text",
  () => {
    let browser: Browser;
    let model: FakeModelServer;
    let ws: TempDir;
    let url: string;
    let token: string;

    beforeAll(async () => {
      browser = await launchChromium();
    });
    afterAll(async () => {
      await browser?.close();
    });
    beforeEach(async () => {
      model = await startFakeModelServer({ respond: scripted });
      ws = tempDir();
      const serve = startReson(
        ["serve", "--port", "0", "--log-format", "json", "--workspace-root", ws.path],
        {
          env: cleanEnv({ RESON_HOME: ws.home, RESON_MEMORY: "false" }),
          cwd: ws.path,
        },
      );
      [, url] = (await serve.waitFor(/"url":"(http:\/\/127\.0\.0\.1:\d+)"/)) as unknown as [string, string];
      token = readFileSync(join(ws.home, "serve-token"), "utf8").trim();
    });
    afterEach(async () => {
      await killAllReson();
      await model.close();
      ws.remove();
    });

    async function startRun(task: string): Promise<string> {
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
        }),
      });
      return ((await response.json()) as { id: string }).id;
    }

    async function signedIn(): Promise<Page> {
      const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, bypassCSP: true });
      const page = await context.newPage();
      await page.goto(`${url}/`);
      await page.fill("#token", token);
      await page.click("button[type=submit]");
      await page.waitForSelector("h1:text('Sessions')");
      return page;
    }

    it("shows an approval's command as the command that would run, its overrides and escapes written out", async () => {
      const page = await signedIn();
      const runId = await startRun(`summarise ${MARKUP}`);
      await page.goto(`${url}/#/runs/${runId}`);
      const card = page.locator("#waiting [data-waiting-call=call_spoof]");
      await card.locator("pre.command").waitFor({ timeout: 30_000 });
      const shown = await card.locator("pre.command").textContent();
      expect(shown).toBe("rm -rf ko; printf ok #\\u{202e}ko ftnirp\\u{202c} \\u{1b}[2J");
      // The same call in the waterfall's panel and the step list: nothing there applies them either.
      const main = (await page.locator("main").textContent()) ?? "";
      for (const applied of ["\u202e", "\u202c", "\u001b"]) expect(main).not.toContain(applied);
      await card.locator("button:text('Deny')").click();
      await page.waitForSelector("#run-status:text('completed')", { timeout: 30_000 });
      // The run's task and answer hold markup: it is shown as text, and none of it ran.
      expect(await page.locator(".answer").textContent()).toContain(MARKUP);
      expect(await page.locator("main img").count()).toBe(0);
      expect(await page.title()).not.toBe("pwned");
      await page.goto(`${url}/#/`);
      await page.waitForSelector("#sessions a");
      expect(await page.locator("#sessions").textContent()).toContain("<img src=x");
      expect(await page.locator("main img, main script").count()).toBe(0);
      expect(await page.title()).not.toBe("pwned");
      await page.context().close();
    }, 90_000);

    it("offers a question's choices written out, each on its own, and picking one answers with that choice", async () => {
      const page = await signedIn();
      const runId = await startRun("ask what to do");
      await page.goto(`${url}/#/runs/${runId}`);
      const card = page.locator("#waiting .prompt-card");
      await card.locator("datalist option").first().waitFor({ state: "attached", timeout: 30_000 });
      const written = ["wipe the disk #\\u{202e}lla ti peek", "yes, and the backups"];
      // The choices the answer box offers and the list under the question read the same.
      const offered = await card
        .locator("datalist option")
        .evaluateAll((options) => options.map((o) => (o as unknown as { value: string }).value));
      expect(offered).toEqual(written);
      expect(await card.locator("ol.choices li").allTextContents()).toEqual(written);
      const main = (await page.locator("main").innerHTML()) ?? "";
      expect(main).not.toContain("\u202e");
      // Picking the first choice puts its shown text in the box; the run gets the choice itself.
      await card.locator("input[aria-label=answer]").fill(offered[0]!);
      await card.locator("button:text('Answer')").click();
      await page.waitForSelector("#run-status:text('completed')", { timeout: 30_000 });
      const answered = model.requests.at(-1)?.body as { messages: Array<{ role: string; content: unknown }> };
      const result = JSON.stringify(answered.messages.filter((m) => m.role === "tool"));
      expect(result).toContain(JSON.stringify(CHOICES[0]).slice(1, -1));
      await page.context().close();
    }, 90_000);
  },
);
