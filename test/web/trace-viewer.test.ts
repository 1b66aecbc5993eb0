// The web view as a trace viewer, in Chromium: the waterfall's bars are the run's calls (count,
// nesting under sub-agents, order) and open whole in the side panel, linked from the goals; a
// pending approval is a banner with the file's diff and "waiting for you" shows in the header,
// the title and the sessions list; the text of the step in flight grows as it streams; parent
// and sub-agent runs link to each other; the sessions' filters live in the URL; a run starts
// with a preset, mode and model; a step's diff and a revert to before it; axe-core finds no
// violation on any page; a run of 500 steps renders.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { axeViolations, describeViolations, launchChromium } from "../support/chromium.js";
import { skipWithout } from "../support/requirements.js";
import { NESTED_TASK, SHOWCASE_TASK, startViewerServe, type ViewerServe } from "../support/viewer-run.js";

interface StepRecord {
  kind: string;
  data: { step?: number; name?: string; toolCallId?: string };
}

describe.skipIf(await skipWithout("chromium", "web view in Chromium"))(
  "the web view as a trace viewer",
  () => {
    let browser: Browser;
    let serve: ViewerServe | undefined;

    beforeAll(async () => {
      browser = await launchChromium();
    });
    afterAll(async () => {
      await browser?.close();
    });
    afterEach(async () => {
      await serve?.close();
      serve = undefined;
    });

    async function signedIn(options: { bypassCSP?: boolean; width?: number } = {}): Promise<Page> {
      const context = await browser.newContext({
        viewport: { width: options.width ?? 1280, height: 900 },
        ...(options.bypassCSP ? { bypassCSP: true } : {}),
      });
      const page = await context.newPage();
      await page.goto(`${serve!.url}/`);
      await page.fill("#token", serve!.token);
      await page.click("button[type=submit]");
      await page.waitForSelector("h1:text('Sessions')");
      return page;
    }

    /** Polls (the page's policy refuses the script waitForFunction would run in it). */
    async function until(condition: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
      const deadline = Date.now() + timeoutMs;
      while (!(await condition())) {
        if (Date.now() > deadline) throw new Error("the page did not get there in time");
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }

    async function traceOf(runId: string) {
      return serve!.api<{ steps: StepRecord[]; children: Array<{ id: string }> }>(
        "GET",
        `/runs/${runId}/trace`,
      );
    }

    it("draws one bar per model and tool call, sub-agents nested under their call, in order; a bar opens whole", async () => {
      serve = await startViewerServe();
      const runId = await serve.startRun(SHOWCASE_TASK, { permissionMode: "bypass" });
      await serve.waitForRun(runId);
      const trace = await traceOf(runId);
      expect(trace.children).toHaveLength(2);
      const page = await signedIn();
      await page.goto(`${serve.url}/#/runs/${runId}`);
      await page.waitForSelector("#run-status:text('completed')");
      await page.waitForSelector(".bar-row[data-depth='2']");
      await until(async () => (await page.locator(".bar-row[data-depth='2']").count()) >= 4);

      const count = (kind: string) => trace.steps.filter((s) => s.kind === kind).length;
      const bars = await page.$$eval(".bar-row", (rows) =>
        rows.map((row) => ({
          kind: row.getAttribute("data-bar"),
          run: row.getAttribute("data-run"),
          step: Number(row.getAttribute("data-step")),
          call: row.getAttribute("data-call"),
          depth: Number(row.getAttribute("data-depth")),
        })),
      );
      expect(bars.filter((b) => b.depth === 0 && b.kind === "model")).toHaveLength(count("model_call"));
      expect(bars.filter((b) => b.depth === 1 && b.kind === "tool")).toHaveLength(count("tool_call"));
      // The parent's calls in the order they were made: its steps ascending, each tool call
      // under its model call, as the trace records them.
      const own = bars.filter((b) => b.run === runId);
      const recorded = trace.steps
        .filter((s) => s.kind === "model_call" || s.kind === "tool_call")
        .map((s) => (s.kind === "model_call" ? `model ${s.data.step}` : `tool ${s.data.toolCallId}`));
      expect(own.map((b) => (b.kind === "model" ? `model ${b.step}` : `tool ${b.call}`))).toEqual(recorded);
      // Each sub-agent's calls follow the subagent call that started it, one level deeper.
      for (const child of trace.children) {
        const childTrace = await traceOf(child.id);
        const childBars = bars.filter((b) => b.run === child.id);
        expect(childBars.filter((b) => b.kind === "model")).toHaveLength(
          childTrace.steps.filter((s) => s.kind === "model_call").length,
        );
        expect(childBars.filter((b) => b.kind === "tool")).toHaveLength(
          childTrace.steps.filter((s) => s.kind === "tool_call").length,
        );
        expect(childBars.every((b) => b.depth === (b.kind === "model" ? 2 : 3))).toBe(true);
        const first = bars.findIndex((b) => b.run === child.id);
        expect(bars[first - 1]).toMatchObject({ kind: "tool", run: runId, depth: 1 });
        expect(bars.slice(first, first + childBars.length).every((b) => b.run === child.id)).toBe(true);
      }

      // A tool bar opens what the tool returned; a model bar what the model saw.
      // By keyboard: Enter on a focused bar opens it, and the bar keeps the focus.
      await page.focus(".bar-row[data-call='ls']");
      await page.keyboard.press("Enter");
      await page.waitForSelector("#panel h2:text('list_files')");
      expect(await page.locator("#panel pre.result").textContent()).toContain("NOTES.md");
      expect(await page.locator(".bar-row[data-call='ls']:focus").count()).toBe(1);
      // Both memory layers: the output the model saw once, the long-term line later steps keep.
      expect(await page.locator("#panel").textContent()).toContain("Output: what the model sees");
      expect(await page.locator("#panel #tool-memory").textContent()).toMatch(/^listed \. \(\d+ entries\)$/);
      expect(await page.locator("#panel").textContent()).toContain("Long-term memory: what later steps see");
      await page.click(`.bar-row[data-run='${runId}'][data-bar='model'][data-step='2']`);
      await page.waitForSelector("#panel h2:text('Step 2: model call')");
      // The context manifest is read when the panel opens: it follows the heading.
      await page.waitForSelector("#panel .manifest h3:text('What the model saw')", { timeout: 15_000 });
      expect(await page.locator("#panel").textContent()).toMatch(/3\.1k in · 60 out/);
      // The goal the step served (step_end's goalId), a link to it in the goals.
      expect(await page.locator("#panel #step-goal").textContent()).toBe("Find the retry settings");
      // The last model call: what the model said.
      await page.click(`.bar-row[data-run='${runId}'][data-bar='model'][data-step='${count("model_call")}']`);
      await page.waitForSelector("#panel #step-text");
      expect(await page.locator("#panel #step-text").textContent()).toContain(
        "The notes now say where the retry loop lives",
      );
      await page.click(`.bar-row[data-run='${runId}'][data-bar='model'][data-step='2']`);
      await page.waitForSelector("#panel h2:text('Step 2: model call')");
      // The selection is in the URL: a reload opens on it.
      expect(page.url()).toContain("sel=");
      await page.reload();
      await page.waitForSelector("#panel h2:text('Step 2: model call')");
      expect(await page.locator(".bar-row.selected").count()).toBe(1);

      // The goals, each linked to the steps that served it; a link selects the step.
      expect(await page.locator("#goal-list li.goal").count()).toBe(2);
      expect(await page.locator("#goal-list li.goal").first().textContent()).toContain(
        "Find the retry settings",
      );
      await page.locator("#goal-list li.goal").nth(1).locator("button.chip", { hasText: "step 6" }).click();
      await page.waitForSelector("#panel h2:text('Step 6: model call')");
      expect(await page.locator("#panel").textContent()).toContain("Update the notes");

      // Charts with axes, units and legends; goal closes marked on the context chart.
      expect(await page.locator("#chart-context .budget-line").count()).toBe(1);
      expect(await page.locator("#chart-context .axis-title").allTextContents()).toEqual(["step", "tokens"]);
      expect(await page.locator("#chart-context .mark.goal-fold").count()).toBe(2);
      expect(await page.locator("#chart-tokens rect.output").count()).toBe(count("model_call"));
      expect(await page.locator("#chart-cost .axis-title").allTextContents()).toEqual(["step", "tokens"]);
      expect(await page.locator("#chart-tokens .legend").textContent()).toContain("output (generated)");
      await page.close();
    }, 120_000);

    it("links a sub-agent's run to its parent and back, and shows what a step changed and the revert to before it", async () => {
      serve = await startViewerServe();
      const runId = await serve.startRun(SHOWCASE_TASK, { permissionMode: "bypass" });
      await serve.waitForRun(runId);
      const page = await signedIn();
      await page.goto(`${serve.url}/#/runs/${runId}`);
      await page.waitForSelector("#run-status:text('completed')");
      const childHref = await page.locator("[data-child] a").first().getAttribute("href");
      await page.click("[data-child] a >> nth=0");
      await page.waitForSelector("#parent-link");
      expect(page.url()).toContain(childHref!);
      expect(await page.locator("#parent-link").getAttribute("href")).toBe(`#/runs/${runId}`);
      await page.waitForSelector("#run-status:text('completed')");
      await page.click("#parent-link");
      await page.waitForSelector(`[data-run='${runId}'] #run-status:text('completed')`);
      expect(await page.locator("#parent-link").count()).toBe(0);

      // Step 6 edited NOTES.md: its diff, then the revert to before it shows what it undoes.
      await page.click(`.bar-row[data-run='${runId}'][data-bar='model'][data-step='6']`);
      await page.click("#step-diff");
      await page.waitForSelector("#panel .diff .d-add:text('+It tries three times')");
      await page.click("#rewind-step");
      await page.waitForSelector("#rewind-plan li:text('restore NOTES.md')");
      expect(await page.locator("#rewind-plan").textContent()).toContain(
        "The rewind to before step 6 puts back:",
      );
      expect(await page.locator("#rewind-plan .diff .d-del").allTextContents()).toContain(
        "-It waits 1 s between tries.\n",
      );
      await page.click("#rewind-confirm");
      await page.waitForSelector("#rewind-plan div:text('Rewound: 1 path put back')");
      expect(readFileSync(join(serve.workspace.path, "NOTES.md"), "utf8")).toContain(
        "It waits 1 s between tries.",
      );
      await page.close();
    }, 120_000);

    it("puts a pending approval at the top with its diff, and says waiting for you in the header, title and sessions list", async () => {
      serve = await startViewerServe();
      // The badge is told over GET /prompts/events: once that stream is open, GET /prompts is
      // not read again for the badge to appear.
      const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
      const page = await context.newPage();
      let streamOpened = false;
      const polls: string[] = [];
      page.on("request", (request) => {
        const path = new URL(request.url()).pathname;
        if (path === "/prompts/events") streamOpened = true;
        else if (path === "/prompts" && streamOpened) polls.push(request.url());
      });
      page.on("response", (response) => {
        if (new URL(response.url()).pathname === "/prompts/events") streamOpened = true;
      });
      await page.goto(`${serve.url}/`);
      await page.fill("#token", serve.token);
      await page.click("button[type=submit]");
      await page.waitForSelector("h1:text('Sessions')");
      await until(async () => streamOpened, 30_000);
      const runId = await serve.startRun("write notes");
      // The sessions page marks the session; the header and the title say it from any page.
      await page.waitForSelector("#waiting-badge:text('1 waiting for you')", { timeout: 30_000 });
      expect(polls).toEqual([]);
      // Over HTTP: what the serve waits on, with the run's session and the change it would make.
      const { prompts } = await serve.api<{
        prompts: Array<{
          runId: string;
          sessionId: string;
          kind: string;
          payload: { change?: { ok: boolean } };
        }>;
      }>("GET", "/prompts");
      const { sessionId } = await serve.api<{ sessionId: string }>("GET", `/runs/${runId}`);
      expect(prompts).toMatchObject([
        { runId, sessionId, kind: "permission", payload: { change: { ok: true } } },
      ]);
      expect(await page.title()).toMatch(/^\(1\) waiting/);
      await page.reload();
      await page.waitForSelector("#sessions tr.is-waiting .waiting-badge");
      expect(await page.locator("#sessions tr.is-waiting a").first().textContent()).toContain("write notes");
      await page.click("#waiting-badge");
      await page.waitForSelector(`[data-run='${runId}'] #waiting .diff`);
      const banner = page.locator("#waiting [data-waiting-call='write_notes']");
      expect(await banner.locator("h3").textContent()).toContain(
        "write_file NOTES.md (overwrites the file, +1 -0)",
      );
      expect(await banner.locator(".diff .d-head").allTextContents()).toEqual([
        "--- a/NOTES.md\n",
        "+++ b/NOTES.md\n",
      ]);
      expect(await banner.locator(".diff .d-add").allTextContents()).toEqual(["+Retries: 3.\n"]);
      expect(await banner.locator("button").allTextContents()).toEqual([
        "Allow once",
        "Allow for the session",
        "Deny",
      ]);
      // The banner is above the run's header.
      const [bannerBox, headBox] = await Promise.all([
        page.locator("#waiting").boundingBox(),
        page.locator(".run-head").boundingBox(),
      ]);
      expect(bannerBox!.y).toBeLessThan(headBox!.y);

      await banner.locator("input.note").fill("keep the notes short");
      await banner.locator("button:text('Deny')").click();
      await page.waitForSelector("#run-status:text('completed')", { timeout: 30_000 });
      expect(await page.locator("#waiting").count()).toBe(0);
      expect(await page.locator(".answer").textContent()).toContain("keep the notes short");
      await page.waitForSelector("#waiting-badge", { state: "detached" });
      expect(await page.title()).toBe("reson");
      await page.close();
    }, 90_000);

    it("shows the text of the step in flight growing as it streams", async () => {
      serve = await startViewerServe();
      const page = await signedIn();
      const runId = await serve.startRun("stream slowly");
      await page.goto(`${serve.url}/#/runs/${runId}`);
      await page.waitForSelector("#live-text:text-matches('^one')", { timeout: 30_000 });
      const first = (await page.locator("#live-text").textContent()) ?? "";
      let later = first;
      await until(async () => {
        later =
          (await page
            .locator("#live-text")
            .textContent()
            .catch(() => "")) ?? "";
        return later.length > first.length;
      });
      expect(later.startsWith(first)).toBe(true);
      await page.waitForSelector("#run-status:text('completed')", { timeout: 30_000 });
      expect(await page.locator("#live-text").count()).toBe(0);
      expect(await page.locator(".answer").textContent()).toContain("one two three");
      await page.close();
    }, 60_000);

    it("filters the sessions by words, model, date and cost, keeping the filters in the URL; starts a run with a preset, mode and model", async () => {
      serve = await startViewerServe();
      const alpha = await serve.startRun("alpha task");
      const beta = await serve.startRun("beta task", { model: "fake-model-2" });
      await Promise.all([serve.waitForRun(alpha), serve.waitForRun(beta)]);
      const page = await signedIn();
      const titles = () => page.locator("#sessions tbody tr td:first-child a").allTextContents();
      await page.waitForSelector("#sessions tbody tr >> nth=1");
      await page.fill("input[name=q]", "alpha");
      await page.press("input[name=q]", "Enter");
      await page.waitForURL(/q=alpha/);
      await page.waitForSelector("#sessions");
      await expect.poll(titles, { timeout: 10_000 }).toEqual([expect.stringContaining("alpha task")]);
      await page.reload();
      await page.waitForSelector("#sessions");
      expect(await page.inputValue("input[name=q]")).toBe("alpha");
      await expect.poll(titles, { timeout: 10_000 }).toEqual([expect.stringContaining("alpha task")]);

      await page.goto(`${serve.url}/#/`);
      await page.waitForSelector("#sessions tbody tr >> nth=1");
      await page.selectOption("select[name=model]", "fake-model-2");
      await page.waitForURL(/model=fake-model-2/);
      await page.waitForSelector("#sessions");
      await expect.poll(titles, { timeout: 10_000 }).toEqual([expect.stringContaining("beta task")]);
      await page.goto(`${serve.url}/#/?since=1h`);
      await page.waitForSelector("#sessions tbody tr >> nth=1");
      await page.goto(`${serve.url}/#/?minCost=5`);
      await page.waitForSelector("#no-match:text('None of the 2 sessions matches these filters.')");

      // A run started in a session with a preset, a permission mode and a model.
      const { sessionId } = await serve.waitForRun(alpha);
      await page.goto(`${serve.url}/#/sessions/${sessionId}`);
      await page.waitForSelector("#runs");
      await page.fill("#run-preset", "explore");
      await page.selectOption("#run-mode", "plan");
      await page.fill("#run-model", "fake-model-3");
      await page.fill("textarea[aria-label=task]", "gamma task");
      await page.click("button:text('Start')");
      await page.waitForSelector("#run-status:text('completed')", { timeout: 30_000 });
      const started = page.url().split("#/runs/")[1]!.split("?")[0]!;
      expect(await serve.api<{ model: string }>("GET", `/runs/${started}`)).toMatchObject({
        model: "fake-model-3",
      });
      const asked = serve.model.requests.at(-1)!.body as {
        model: string;
        tools?: Array<{ function: { name: string } }>;
      };
      expect(asked.model).toBe("fake-model-3");
      // explore is read-only: no tool that writes was offered.
      expect(asked.tools?.map((t) => t.function.name) ?? []).not.toContain("write_file");
      await page.close();
    }, 90_000);

    it("has no axe-core violation on any page, light or dark, and nothing wider than a phone", async () => {
      serve = await startViewerServe();
      const done = await serve.startRun(SHOWCASE_TASK, { permissionMode: "bypass" });
      await serve.waitForRun(done);
      const waiting = await serve.startRun("write notes");
      const trace = await traceOf(done);
      for (const scheme of ["light", "dark"] as const)
        for (const width of [1280, 375]) {
          const page = await signedIn({ bypassCSP: true, width });
          await page.emulateMedia({ colorScheme: scheme });
          const pages: Array<[string, string]> = [
            ["sessions", "#/"],
            ["workspaces", "#/workspaces"],
            ["run with sub-agents", `#/runs/${done}?sel=${done}~2`],
            ["selected tool call", `#/runs/${done}?sel=${done}~2~ls`],
            ["sub-agent run", `#/runs/${trace.children[0]!.id}`],
            ["pending approval", `#/runs/${waiting}`],
          ];
          const { sessionId } = await serve.api<{ sessionId: string }>("GET", `/runs/${done}`);
          pages.push(["session", `#/sessions/${sessionId}`]);
          for (const [name, hash] of pages) {
            await page.goto(`${serve.url}/${hash}`);
            await page.waitForSelector(
              name === "pending approval" ? "#waiting .diff" : "main h1, main .run",
              { timeout: 30_000 },
            );
            if (name.startsWith("run") || name.startsWith("selected") || name.startsWith("sub"))
              await page.waitForSelector("#run-status:text('completed')");
            await page.waitForTimeout(200);
            const violations = await axeViolations(page);
            expect(describeViolations(violations), `${name} at ${width} px, ${scheme}`).toEqual([]);
            const overflow = Number(
              await page.evaluate("document.documentElement.scrollWidth - window.innerWidth"),
            );
            expect(overflow, `${name} at ${width} px is wider than the screen`).toBeLessThanOrEqual(0);
          }
          await page.context().close();
        }
    }, 240_000);

    it("grows a running sub-agent's bars live under its call, without a reload", async () => {
      serve = await startViewerServe();
      const page = await signedIn();
      const runId = await serve.startRun(NESTED_TASK, { permissionMode: "bypass" });
      await page.goto(`${serve.url}/#/runs/${runId}`);
      await page.waitForSelector(".bar-row[data-depth='0']");
      // The sub-agent's model calls, one level in (two depths: under the subagent call).
      const childModel = ".bar-row[data-bar='model'][data-depth='2']";
      let firstSeen = 0;
      await until(async () => {
        firstSeen = await page.locator(childModel).count();
        return firstSeen >= 1;
      }, 60_000);
      // Seen while the sub-agent still goes on (not its five steps at once when it ended), and
      // while the run does: its bars came over the streams, not from a reload.
      expect(firstSeen).toBeLessThan(5);
      const seenWhileRunning = await page.locator("#run-status").textContent();
      await until(async () => (await page.locator(childModel).count()) >= 5, 60_000);
      await page.waitForSelector("#run-status:text('completed')", { timeout: 60_000 });
      expect(seenWhileRunning).toBe("running");
      const childCalls = await page.$$eval(".bar-row[data-depth='3']", (rows) =>
        rows.map((row) => row.getAttribute("data-call")),
      );
      expect(childCalls).toEqual(["deep_0", "deep_1", "deep_2", "deep_3"]);
      // The sub-agent's bars sit under the subagent call that started it.
      const depths = await page.$$eval(".bar-row", (rows) =>
        rows.map((row) => `${row.getAttribute("data-bar")} ${row.getAttribute("data-depth")}`),
      );
      expect(depths.slice(0, 4)).toEqual(["model 0", "tool 1", "model 2", "tool 3"]);
      await page.close();
    }, 240_000);

    it("renders a run of 500 steps: every call in the waterfall, every step in the detail list once opened", async () => {
      serve = await startViewerServe();
      const runId = await serve.startRun("long run of 500 steps", {
        permissionMode: "bypass",
        maxIterations: 600,
      });
      await serve.waitForRun(runId, undefined, 400_000);
      const page = await signedIn();
      await page.goto(`${serve.url}/#/runs/${runId}`);
      await page.waitForSelector("#run-status:text('completed')", { timeout: 60_000 });
      // Every call is in the waterfall (its rows drawn as it scrolls); the last at the bottom.
      expect(await page.locator("#waterfall .bars").getAttribute("data-count")).toBe("999");
      expect(await page.locator(".bar-row").count()).toBeLessThan(100);
      // By keyboard: End goes to the last call (drawing its row), the arrows step through.
      // Once the page's late reads (the steps' manifests) are drawn.
      await page.waitForLoadState("networkidle");
      await page.waitForTimeout(200);
      await page.focus(".bar-row[data-index='0']");
      await page.keyboard.press("End");
      await page.waitForSelector(".bar-row[data-bar='model'][data-step='500']:focus");
      await page.keyboard.press("ArrowUp");
      await page.waitForSelector(".bar-row[data-bar='tool'][data-step='499']:focus");
      await page.keyboard.press("ArrowDown");
      await page
        .waitForSelector(".bar-row[data-bar='model'][data-step='500']:focus", { timeout: 5000 })
        .catch(async (error: unknown) => {
          throw new Error(
            `${String(error)}\nfocused: ${await page.evaluate("document.activeElement?.outerHTML.slice(0, 300)")}`,
          );
        });
      await page.keyboard.press("Enter");
      await page.waitForSelector("#panel h2:text('Step 500: model call')");
      // The steps in detail wait to be asked for, then are all there.
      expect(await page.locator("li.step").count()).toBe(0);
      await page.click(".steps-detail summary");
      // The list is drawn on the details' toggle event, which the browser fires as a task after the click.
      // (Not waitForFunction: it evaluates a string, which the page's policy refuses.)
      await page.waitForSelector("li.step#step-500", { state: "attached", timeout: 15_000 });
      expect(await page.locator("li.step").count()).toBe(500);
      // Each step's body is drawn when it is opened: its tool call is there only then.
      expect(await page.locator("li.step .tool").count()).toBe(0);
      await page.click("#step-7 summary");
      await page.waitForSelector("#step-7 .tool strong:text('list_files')", { timeout: 15_000 });
      expect(await page.locator("li.step .tool").count()).toBe(1);
      expect(await page.locator("#chart-tokens path.bars.output").count()).toBe(1);
      expect(await page.locator("#chart-context .line.context").count()).toBe(1);
      await page.close();
    }, 480_000);
  },
);
