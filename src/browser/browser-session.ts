// One run's browser: Chromium through playwright-core, started on first use with a fresh
// profile in a temporary folder, closed (profile removed) with the run. Chromium is driven
// over a pipe, so it exits when reson does, however reson ends (a SIGKILL included). Calls
// are served one at a time: the tools share one page, and read-only ones may be called in
// parallel by the loop.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import type { BrowserContext, Download, Page } from "playwright-core";
import { ResonError } from "../core/errors.js";
import { importEsm } from "../core/esm-import.js";
import type { Workspace } from "../workspace/index.js";
import { isLocalScheme, refusalFor } from "./address-guard.js";
import { findChromium, skewWarning } from "./executable.js";
import { type RenderedState, SnapshotTracker } from "./page-state.js";

export interface BrowserSettings {
  /** Chromium or Chrome to run; default the first one on PATH. */
  executablePath?: string;
  headless: boolean;
  /** Loopback and private hosts the browser may open (e.g. "127.0.0.1" for a local app). */
  allowPrivateHosts: readonly string[];
  /** Tokens of page snapshot shown after each action. */
  snapshotTokens: number;
}

const ACTION_TIMEOUT_MS = 10_000;
const NAVIGATION_TIMEOUT_MS = 30_000;

export class BrowserSession {
  readonly tracker = new SnapshotTracker();
  /** Said once, with the first page state: a version skew, a blocked navigation. */
  readonly notices: string[] = [];
  #context: BrowserContext | undefined;
  #launching: Promise<BrowserContext> | undefined;
  #profile: string | undefined;
  #active: Page | undefined;
  #queue: Promise<unknown> = Promise.resolve();
  #closed = false;

  constructor(
    readonly settings: BrowserSettings,
    private readonly workspace: Workspace,
  ) {}

  get started(): boolean {
    return this.#context !== undefined;
  }

  /** Runs `task` after every call before it has finished. */
  serial<T>(task: () => Promise<T>): Promise<T> {
    const next = this.#queue.then(task, task);
    this.#queue = next.catch(() => {});
    return next;
  }

  /** The page the tools act on, starting the browser the first time. */
  async page(signal: AbortSignal): Promise<Page> {
    const context = await this.#start(signal);
    if (this.#active && !this.#active.isClosed()) return this.#active;
    this.#active = context.pages().find((page) => !page.isClosed()) ?? (await context.newPage());
    this.tracker.reset();
    return this.#active;
  }

  pages(): Page[] {
    return this.#context?.pages().filter((page) => !page.isClosed()) ?? [];
  }

  activate(page: Page): void {
    if (page === this.#active) return;
    this.#active = page;
    this.tracker.reset();
  }

  /** Refuses a URL the browser may not open, with what to do about it. */
  check(url: string): void {
    const refusal = refusalFor(url, this.settings.allowPrivateHosts);
    if (refusal)
      throw new ResonError("browser_refused", `Not opening ${url}: ${refusal}.`, {
        hint: "Open an http or https page on a public host, or ask the user to allow the host.",
      });
  }

  async state(signal: AbortSignal): Promise<RenderedState> {
    const page = await this.page(signal);
    return this.tracker.render(page, { budgetTokens: this.settings.snapshotTokens, signal });
  }

  async close(): Promise<void> {
    this.#closed = true;
    const context = this.#context ?? (await this.#launching?.catch(() => undefined));
    this.#context = undefined;
    await context?.close().catch(() => {});
    if (this.#profile) await rm(this.#profile, { recursive: true, force: true }).catch(() => {});
    this.#profile = undefined;
  }

  #start(signal: AbortSignal): Promise<BrowserContext> {
    if (this.#context) return Promise.resolve(this.#context);
    if (this.#closed) throw new ResonError("browser_unavailable", "The run's browser is already closed.");
    this.#launching ??= this.#launch(signal).finally(() => {
      this.#launching = undefined;
    });
    return this.#launching;
  }

  async #launch(signal: AbortSignal): Promise<BrowserContext> {
    const executablePath = findChromium(this.settings.executablePath);
    if (!executablePath)
      throw new ResonError("browser_unavailable", "No Chromium or Chrome was found for the browser tools.", {
        hint: "Install one (Debian/Ubuntu: apt-get install chromium) or set browser.executablePath in the config.",
      });
    // Loaded on first use: a run that never browses never pays for playwright.
    const { chromium } = await importEsm<typeof import("playwright-core")>("playwright-core");
    this.#profile = await mkdtemp(join(tmpdir(), "reson-browser-"));
    let context: BrowserContext;
    try {
      context = await chromium.launchPersistentContext(this.#profile, {
        executablePath,
        headless: this.settings.headless,
        // Chromium's own sandbox cannot start as root; elsewhere it stays on.
        chromiumSandbox: process.getuid?.() !== 0,
        acceptDownloads: true,
        timeout: NAVIGATION_TIMEOUT_MS,
        args: ["--disable-background-networking", "--no-first-run", "--no-default-browser-check"],
      });
    } catch (error) {
      await rm(this.#profile, { recursive: true, force: true }).catch(() => {});
      throw new ResonError(
        "browser_unavailable",
        `Chromium at ${executablePath} did not start: ${(error as Error).message.split("\n")[0]}`,
        { hint: "Run `reson doctor` to check the browser, or set browser.executablePath." },
      );
    }
    if (signal.aborted || this.#closed) {
      await context.close().catch(() => {});
      throw new ResonError("aborted", "The run ended while the browser was starting.");
    }
    context.setDefaultTimeout(ACTION_TIMEOUT_MS);
    context.setDefaultNavigationTimeout(NAVIGATION_TIMEOUT_MS);
    const warning = skewWarning(context.browser()?.version() ?? "");
    if (warning) this.notices.push(warning);
    // Every request the pages make passes the same check as browser_navigate.
    await context.route("**/*", (route) => {
      const url = route.request().url();
      if (isLocalScheme(url) || !refusalFor(url, this.settings.allowPrivateHosts)) return route.continue();
      if (route.request().isNavigationRequest())
        this.notices.push(
          `Blocked the page's navigation to ${url}: ${refusalFor(url, this.settings.allowPrivateHosts)}.`,
        );
      return route.abort("blockedbyclient");
    });
    const watch = (page: Page) => {
      page.on("download", (download) => void this.#save(download));
      page.on("framenavigated", (frame) => {
        if (frame !== page.mainFrame()) return;
        // A new document: nothing on it is "new since the last step".
        if (page === this.#active) this.tracker.reset();
        const url = frame.url();
        if (url === "about:blank" || !refusalFor(url, this.settings.allowPrivateHosts)) return;
        this.notices.push(`The page went to ${url}, which the browser may not open; it was closed.`);
        void page.goto("about:blank").catch(() => {});
      });
    };
    for (const page of context.pages()) watch(page);
    context.on("page", (page) => {
      watch(page);
      // A page opened by the current one (target=_blank, window.open) is where the user would look.
      this.activate(page);
      this.notices.push("A new tab opened and is now the current one (browser_tabs lists them).");
    });
    this.#context = context;
    return context;
  }

  /** Downloads land in the workspace's downloads/ folder, or are refused when it is read-only. */
  async #save(download: Download): Promise<void> {
    const name = basename(download.suggestedFilename()) || "download";
    try {
      const target = await this.workspace.resolve(`downloads/${name}`);
      if (this.workspace.policy.readOnly) throw new Error("the workspace is read-only");
      await download.saveAs(target.real);
      this.notices.push(`Downloaded ${name} to downloads/${name}.`);
    } catch (error) {
      await download.cancel().catch(() => {});
      this.notices.push(`The download of ${name} was not kept: ${(error as Error).message}.`);
    }
  }
}

/**
 * The browsers of the runs of one agent, by run id: one per run, closed with it. A sub-agent
 * that may act shares its parent's (the page the parent reached is where it works).
 */
export class BrowserPool {
  readonly #sessions = new Map<string, BrowserSession>();
  /** Sub-agent run id -> the run whose browser it uses. */
  readonly #shared = new Map<string, string>();

  constructor(
    readonly settings: BrowserSettings,
    private readonly workspace: Workspace,
  ) {}

  /** Lets run `childRunId` use the browser of `parentRunId` (until the child ends). */
  share(childRunId: string, parentRunId: string): void {
    this.#shared.set(childRunId, this.#shared.get(parentRunId) ?? parentRunId);
  }

  forRun(id: string): BrowserSession {
    const runId = this.#shared.get(id) ?? id;
    let session = this.#sessions.get(runId);
    if (!session) {
      session = new BrowserSession(this.settings, this.workspace);
      this.#sessions.set(runId, session);
    }
    return session;
  }

  async closeRun(runId: string): Promise<void> {
    // A sub-agent's end leaves its parent's browser open.
    if (this.#shared.delete(runId)) return;
    const session = this.#sessions.get(runId);
    this.#sessions.delete(runId);
    await session?.close();
  }

  async closeAll(): Promise<void> {
    const sessions = [...this.#sessions.values()];
    this.#sessions.clear();
    this.#shared.clear();
    await Promise.all(sessions.map((session) => session.close()));
  }
}
