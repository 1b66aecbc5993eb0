// One run's browser: Chromium through playwright-core, started on first use with a fresh
// profile in a temporary folder, closed (profile removed) with the run. Chromium is driven
// over a pipe, so it exits when reson does, however reson ends (a SIGKILL included). Calls
// are served one at a time: the tools share one page, and read-only ones may be called in
// parallel by the loop. Every request a page makes is checked before it leaves: the address
// guard, then the run's own check (the permission rules, and after untrusted content only
// hosts a rule names). A navigation is fetched here hop by hop, because Chromium follows a
// redirect without showing it to the check: each redirect becomes a navigation of its own.
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import type { BrowserContext, Download, Page, Request, Route } from "playwright-core";
import { isLocalScheme, refusalFor } from "../core/address-guard.js";
import { ResonError } from "../core/errors.js";
import { importEsm } from "../core/esm-import.js";
import type { Hop } from "../tools/index.js";
import type { Workspace } from "../workspace/index.js";
import { downloadName } from "./download-name.js";
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
/** Marks the stand-in page that turns a redirect into a navigation of its own. */
const REDIRECT_MARK = "data-reson-redirect";
/** A redirect chain longer than this is not followed further. */
const MAX_REDIRECTS = 10;
/** The largest download kept in the workspace (a larger one is not kept, and the model is told). */
const MAX_DOWNLOAD_BYTES = 256 * 1024 ** 2;

/** Decides a request the model's call did not name (ToolContext.checkHop). */
export type HopChecker = (hop: Hop) => Promise<string | undefined>;

/** What stands in for a redirect's response: a page that moves on to `next` (replacing itself in history). */
function redirectPage(next: string): string {
  return `<!doctype html><html ${REDIRECT_MARK}><script>location.replace(${JSON.stringify(next)})</script></html>`;
}

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
  /** The run's check of requests nobody named (set by each tool call, with the run's trust as it is). */
  #checkHop: HopChecker | undefined;
  /** The URL a browser_navigate call was approved for: its first request is not decided again. */
  #expected: string | undefined;
  /** Redirects followed in the current chain, by where the chain started. */
  #redirects = 0;

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

  /** The check the page's own requests go through from now on (the calling tool's). */
  useHopCheck(check: HopChecker | undefined): void {
    this.#checkHop = check;
  }

  /** browser_navigate is about to open `url`, as its call was approved: that request is not decided again. */
  expect(url: string): void {
    this.#expected = new URL(url).href;
    this.#redirects = 0;
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
    // A redirect followed as a navigation of its own: the state is of where it lands.
    await page
      .waitForFunction(
        (mark) =>
          !(
            globalThis as unknown as {
              document: { documentElement: { hasAttribute(name: string): boolean } };
            }
          ).document.documentElement.hasAttribute(mark),
        REDIRECT_MARK,
        { timeout: NAVIGATION_TIMEOUT_MS },
      )
      .then(() => page.waitForLoadState("domcontentloaded"))
      .catch(() => {});
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
    // No DNS prefetching or preconnecting: a host name on a page is looked up only when a
    // request to it passes the checks (a name can carry data to whoever serves its DNS).
    await mkdir(join(this.#profile, "Default"), { recursive: true });
    await writeFile(
      join(this.#profile, "Default", "Preferences"),
      JSON.stringify({ net: { network_prediction_options: 2 } }),
    );
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
    // Every request the pages make passes the address guard and the run's check before it leaves.
    await context.route("**/*", (route) => this.#route(route));
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

  async #route(route: Route): Promise<void> {
    const request = route.request();
    const url = request.url();
    if (isLocalScheme(url)) return route.continue();
    const navigation = request.isNavigationRequest();
    const refusal = refusalFor(url, this.settings.allowPrivateHosts) ?? (await this.#decide(request));
    if (refusal !== undefined) {
      if (navigation) this.notices.push(`Blocked the page's navigation to ${url}: ${refusal}.`);
      return route.abort("blockedbyclient");
    }
    if (!navigation) return route.continue();
    return this.#navigate(route, url);
  }

  /** The run's verdict on a request the model's call did not name; undefined: it may go. */
  async #decide(request: Request): Promise<string | undefined> {
    const url = request.url();
    if (request.isNavigationRequest() && url === this.#expected) {
      this.#expected = undefined;
      return undefined;
    }
    const here = await this.#requester(request);
    return this.#checkHop?.({
      url,
      kind: request.isNavigationRequest() ? "navigation" : "subresource",
      tool: "browser_navigate",
      ...(here ? { from: here } : {}),
    });
  }

  /** The page a request comes from: its frame's document, or for a new tab the page that opened it. */
  async #requester(request: Request): Promise<string | undefined> {
    try {
      const frame = request.frame();
      if (/^https?:/.test(frame.url())) return frame.url();
      return (await frame.page().opener())?.url() ?? this.#active?.url();
    } catch {
      // A service worker's request has no frame.
      return this.#active?.url();
    }
  }

  /**
   * A navigation, fetched here rather than by Chromium, which would follow a redirect unseen:
   * a redirect is checked, then answered with a stand-in page that navigates on to it, so that
   * its own request passes through here like any other (and is made exactly once).
   */
  async #navigate(route: Route, url: string): Promise<void> {
    let response: Awaited<ReturnType<Route["fetch"]>>;
    try {
      response = await route.fetch({ maxRedirects: 0 });
    } catch {
      return route.abort("failed").catch(() => {});
    }
    const location = response.headers().location;
    if (response.status() < 300 || response.status() >= 400 || !location) {
      this.#redirects = 0;
      return route.fulfill({ response });
    }
    const next = new URL(location, url).href;
    const refusal =
      this.#redirects >= MAX_REDIRECTS
        ? `more than ${MAX_REDIRECTS} redirects in a row`
        : (refusalFor(next, this.settings.allowPrivateHosts) ??
          (await this.#checkHop?.({ url: next, kind: "redirect", tool: "browser_navigate", from: url })));
    if (refusal !== undefined) {
      this.notices.push(`Did not follow the redirect from ${url} to ${next}: ${refusal}.`);
      return route.abort("blockedbyclient");
    }
    this.#redirects += 1;
    // Decided just now: the stand-in's navigation to it is not decided twice.
    this.#expected = next;
    return route.fulfill({ status: 200, contentType: "text/html", body: redirectPage(next) });
  }

  /**
   * Downloads land in the workspace's downloads/ folder, or are refused when it is read-only:
   * written as the file tools write (protected paths refused, as named and where a link leads,
   * so a downloads/ planted as a link into .git/hooks holds nothing), under a name that neither
   * steers nor runs (download-name.ts), at most MAX_DOWNLOAD_BYTES.
   */
  async #save(download: Download): Promise<void> {
    const suggested = basename(download.suggestedFilename()) || "download";
    const name = downloadName(suggested);
    try {
      if (this.workspace.policy.readOnly) throw new Error("the workspace is read-only");
      const file = await download.path();
      const { size } = await stat(file);
      if (size > MAX_DOWNLOAD_BYTES) throw new Error(`it is ${size} bytes, more than ${MAX_DOWNLOAD_BYTES}`);
      const written = await this.workspace.writeBytes(`downloads/${name}`, await readFile(file));
      this.notices.push(`Downloaded ${suggested} to ${written.path}.`);
    } catch (error) {
      await download.cancel().catch(() => {});
      this.notices.push(`The download of ${suggested} was not kept: ${(error as Error).message}.`);
    } finally {
      await download.delete().catch(() => {});
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
