// The browser tools. Each acts on the run's browser and answers with what it did and the page
// state (URL, title, snapshot with refs); the state is shown once and then folds to the
// one-line action in history. The page's URL becomes the run's current URL, so URL-scoped
// tools and secrets follow the browser (secret-typing.ts fills secrets in browser_type).
import type { Locator, Page } from "playwright-core";
import { type Static, type TSchema, Type } from "typebox";
import { ResonError } from "../core/errors.js";
import type { ToolContext, ToolDefinition, ToolOutput } from "../tools/index.js";
import type { BrowserPool, BrowserSession } from "./browser-session.js";
import { filterByQuery, pageMarkdown } from "./extract.js";
import { typeInto } from "./secret-typing.js";

const MAX_WAIT_MS = 30_000;
/** Any http or https page: where the tools that act on a page are offered. */
const ON_A_PAGE = ["http*://*"];

const Ref = Type.String({
  minLength: 1,
  description: 'An element ref from the latest page snapshot, e.g. "e12".',
});

/** The URL as the run keeps it: no query, fragment or credentials (they may hold tokens). */
function runUrl(url: string): string | undefined {
  try {
    const parsed = new URL(url);
    if (parsed.protocol !== "http:" && parsed.protocol !== "https:") return undefined;
    return `${parsed.origin}${parsed.pathname}`;
  } catch {
    return undefined;
  }
}

function shortUrl(url: string): string {
  const kept = runUrl(url);
  return kept ? kept.replace(/^https?:\/\//, "") : url;
}

/** The element a ref names on the current page, or an error saying where refs come from. */
async function element(page: Page, ref: string): Promise<Locator> {
  const clean = ref.replace(/^\*?\[?(ref=)?/, "").replace(/\]$/, "");
  const locator = page.locator(`aria-ref=${clean}`);
  if ((await locator.count().catch(() => 0)) === 0)
    throw new ResonError("browser_failed", `No element ${clean} on the page now.`, {
      hint: "Use a ref from the latest page snapshot; the page may have changed since.",
    });
  return locator;
}

type Action<S extends TSchema> = (
  args: Static<S>,
  page: Page,
  session: BrowserSession,
  ctx: ToolContext,
) => Promise<string>;

/** A browser tool: runs `action` on the run's page, then reports the page state. */
function browserTool<S extends TSchema>(
  pool: BrowserPool,
  spec: { name: string; description: string; parameters: S; readOnly: boolean },
  action: Action<S>,
): ToolDefinition<S> {
  return {
    ...spec,
    saveOverflowAsArtifact: false,
    // Pages are untrusted content, and every request they make is checked as it happens.
    external: true,
    execute: (args, ctx) => {
      const session = pool.forRun(ctx.runId);
      return session.serial(async () => {
        session.useHopCheck(ctx.checkHop);
        const page = await session.page(ctx.signal);
        const done = await action(args, page, session, ctx);
        return pageReport(done, session, ctx);
      });
    },
  };
}

async function pageReport(done: string, session: BrowserSession, ctx: ToolContext): Promise<ToolOutput> {
  const state = await session.state(ctx.signal);
  const url = runUrl(state.url);
  if (url) ctx.setUrl?.(url);
  const notices = session.notices.splice(0);
  const text = [done, ...notices, "", state.text].join("\n");
  return {
    content: ctx.secrets ? ctx.secrets.redact(text) : text,
    longTermMemory: `${done} (now at ${shortUrl(state.url)}${state.title ? `, "${state.title}"` : ""})`,
    includeOutputOnlyOnce: true,
  };
}

const navigateParams = Type.Object(
  { url: Type.String({ minLength: 1, description: "An http:// or https:// URL." }) },
  { additionalProperties: false },
);
const noParams = Type.Object({}, { additionalProperties: false });
const clickParams = Type.Object({ ref: Ref }, { additionalProperties: false });
const typeParams = Type.Object(
  {
    ref: Ref,
    text: Type.String({ description: "What to type; a secret as <secret>name</secret>." }),
    submit: Type.Optional(Type.Boolean({ description: "Press Enter afterwards (submits most forms)." })),
  },
  { additionalProperties: false },
);
const selectParams = Type.Object(
  { ref: Ref, values: Type.Array(Type.String(), { minItems: 1, description: "Option values or labels." }) },
  { additionalProperties: false },
);
const scrollParams = Type.Object(
  {
    direction: Type.Optional(Type.Union([Type.Literal("up"), Type.Literal("down")])),
    ref: Type.Optional(Ref),
  },
  { additionalProperties: false },
);
const pressParams = Type.Object(
  { key: Type.String({ minLength: 1, description: 'A key or chord: "Enter", "Escape", "Control+A".' }) },
  { additionalProperties: false },
);
const waitParams = Type.Object(
  {
    text: Type.Optional(Type.String({ minLength: 1, description: "Wait until this text is on the page." })),
    ref: Type.Optional(Ref),
    ms: Type.Optional(
      Type.Integer({ minimum: 1, maximum: MAX_WAIT_MS, description: "Or just wait this long." }),
    ),
  },
  { additionalProperties: false },
);
const tabsParams = Type.Object(
  {
    action: Type.Union([
      Type.Literal("list"),
      Type.Literal("new"),
      Type.Literal("switch"),
      Type.Literal("close"),
    ]),
    index: Type.Optional(Type.Integer({ minimum: 0, description: "The tab for switch and close." })),
  },
  { additionalProperties: false },
);
const extractParams = Type.Object(
  { query: Type.Optional(Type.String({ description: "Keep only what mentions these words." })) },
  { additionalProperties: false },
);

export function createBrowserTools(pool: BrowserPool): ToolDefinition[] {
  const tools = [
    browserTool(
      pool,
      {
        name: "browser_navigate",
        description:
          "Open a URL in the run's browser (started on first use) and show the page: URL, title and an " +
          "accessibility snapshot where each element has a ref (e.g. [ref=e12]) to act on with the other " +
          "browser tools. Elements new since the last step are marked *[ref=…].",
        parameters: navigateParams,
        readOnly: false,
      },
      async (args, page, session) => {
        session.check(args.url);
        session.expect(args.url);
        try {
          const response = await page.goto(args.url, { waitUntil: "domcontentloaded" });
          return `Opened ${shortUrl(args.url)}${response ? ` (HTTP ${response.status()})` : ""}`;
        } catch (error) {
          // A hop the checks refused (a redirect elsewhere): the notices say which and why.
          if (!/ERR_BLOCKED_BY_CLIENT/.test((error as Error).message)) throw error;
          return `Did not open ${shortUrl(args.url)}: a request on the way was blocked`;
        }
      },
    ),
    browserTool(
      pool,
      {
        name: "browser_back",
        description: "Go back one page in the current tab.",
        parameters: noParams,
        readOnly: true,
      },
      async (_args, page) => {
        const response = await page.goBack({ waitUntil: "domcontentloaded" });
        return response ? "Went back" : "There is no page to go back to";
      },
    ),
    browserTool(
      pool,
      {
        name: "browser_click",
        description: "Click the element with this ref.",
        parameters: clickParams,
        readOnly: false,
      },
      async (args, page) => {
        await (await element(page, args.ref)).click();
        await page.waitForLoadState("domcontentloaded").catch(() => {});
        return `Clicked ${args.ref}`;
      },
    ),
    browserTool(
      pool,
      {
        name: "browser_type",
        description:
          "Type text into the field with this ref (replacing what is there); submit: true presses Enter. " +
          "Write a secret as <secret>name</secret>: it is filled in only on the site it belongs to and never shown.",
        parameters: typeParams,
        readOnly: false,
      },
      async (args, page, _session, ctx) => {
        const locator = await element(page, args.ref);
        const used = await typeInto(locator, args.text, ctx);
        if (args.submit) {
          await locator.press("Enter");
          await page.waitForLoadState("domcontentloaded").catch(() => {});
        }
        const what = used.length > 0 ? `the secret ${used.join(", ")}` : `${args.text.length} characters`;
        return `Typed ${what} into ${args.ref}${args.submit ? " and submitted" : ""}`;
      },
    ),
    browserTool(
      pool,
      {
        name: "browser_select",
        description: "Choose options of the select with this ref.",
        parameters: selectParams,
        readOnly: false,
      },
      async (args, page) => {
        const chosen = await (await element(page, args.ref)).selectOption(args.values);
        return `Selected ${chosen.join(", ")} in ${args.ref}`;
      },
    ),
    browserTool(
      pool,
      {
        name: "browser_scroll",
        description:
          "Scroll the page up or down by most of a screen, or bring the element with this ref into view.",
        parameters: scrollParams,
        readOnly: true,
      },
      async (args, page) => {
        if (args.ref) {
          await (await element(page, args.ref)).scrollIntoViewIfNeeded();
          return `Scrolled ${args.ref} into view`;
        }
        const height = page.viewportSize()?.height ?? 720;
        await page.mouse.wheel(0, (args.direction === "up" ? -1 : 1) * Math.round(height * 0.8));
        return `Scrolled ${args.direction ?? "down"}`;
      },
    ),
    browserTool(
      pool,
      {
        name: "browser_press",
        description: "Press a key in the page (the focused element gets it).",
        parameters: pressParams,
        readOnly: false,
      },
      async (args, page) => {
        await page.keyboard.press(args.key);
        await page.waitForLoadState("domcontentloaded").catch(() => {});
        return `Pressed ${args.key}`;
      },
    ),
    browserTool(
      pool,
      {
        name: "browser_wait",
        description: `Wait until a text or an element (ref) is on the page, or for ms milliseconds (at most ${MAX_WAIT_MS / 1000} s).`,
        parameters: waitParams,
        readOnly: true,
      },
      async (args, page) => {
        const timeout = Math.min(args.ms ?? MAX_WAIT_MS, MAX_WAIT_MS);
        try {
          if (args.text !== undefined) {
            await page.getByText(args.text).first().waitFor({ timeout });
            return `"${args.text}" is on the page`;
          }
          if (args.ref !== undefined) {
            await page.locator(`aria-ref=${args.ref}`).waitFor({ timeout });
            return `${args.ref} is on the page`;
          }
        } catch {
          throw new ResonError("browser_failed", `Waited ${timeout / 1000} s; it did not appear.`);
        }
        await page.waitForTimeout(timeout);
        return `Waited ${timeout} ms`;
      },
    ),
    browserTool(
      pool,
      {
        name: "browser_tabs",
        description: "list the tabs, open a new empty one, switch to one or close one (by index).",
        parameters: tabsParams,
        readOnly: true,
      },
      async (args, page, session) => {
        const pages = session.pages();
        if (args.action === "new") {
          session.activate(await page.context().newPage());
          return "Opened a new tab";
        }
        if (args.action === "list")
          return pages
            .map((p, i) => `${i}: ${shortUrl(p.url())}${p === page ? " (current)" : ""}`)
            .join("\n");
        const target = pages[args.index ?? -1];
        if (!target)
          throw new ResonError("browser_failed", `There is no tab ${args.index ?? "(none given)"}.`, {
            hint: `Give an index from 0 to ${pages.length - 1}.`,
          });
        if (args.action === "switch") {
          session.activate(target);
          return `Switched to tab ${args.index}`;
        }
        await target.close();
        const rest = session.pages();
        if (rest[0]) session.activate(rest[0]);
        return `Closed tab ${args.index}`;
      },
    ),
    browserTool(
      pool,
      {
        name: "browser_screenshot",
        description: "Save a PNG of the visible page into the workspace (screenshots/), for the user.",
        parameters: noParams,
        readOnly: false,
      },
      async (_args, page, _session, ctx) => {
        const name = `screenshots/${ctx.runId}-${Date.now()}.png`;
        if (ctx.workspace.policy.readOnly)
          throw new ResonError("workspace_read_only", "The workspace is read-only; no screenshot was saved.");
        // Written as the file tools write: never through a link out of screenshots/ onto a protected path.
        const written = await ctx.workspace.writeBytes(name, await page.screenshot());
        return `Saved a screenshot to ${written.path}`;
      },
    ),
  ];
  // Until the run is on a web page only browser_navigate is offered: the others would cost
  // every request of a run that never browses their descriptions.
  return [...tools, extractTool(pool)].map((tool) =>
    tool.name === "browser_navigate" ? tool : { ...tool, urlPatterns: ON_A_PAGE },
  ) as ToolDefinition[];
}

/** browser_extract: the page's content, shown once, kept in history as one line (and an artifact). */
function extractTool(pool: BrowserPool): ToolDefinition<typeof extractParams> {
  return {
    name: "browser_extract",
    description:
      "The current page's content as Markdown (headings, text, lists, tables), shown to you once; " +
      "afterwards only a one-line note stays, naming an artifact to re-read with read_artifact. " +
      "query keeps only what mentions its words.",
    parameters: extractParams,
    readOnly: true,
    external: true,
    execute: (args, ctx) => {
      const session = pool.forRun(ctx.runId);
      return session.serial(async () => {
        session.useHopCheck(ctx.checkHop);
        const page = await session.page(ctx.signal);
        const full = await pageMarkdown(page);
        const raw = args.query ? filterByQuery(full, args.query) : full;
        const content = ctx.secrets ? ctx.secrets.redact(raw) : raw;
        const url = runUrl(page.url());
        if (url) ctx.setUrl?.(url);
        const where = shortUrl(page.url());
        let memory = `extracted ${content.length.toLocaleString("en-US")} chars from ${where}${args.query ? ` for "${args.query}"` : ""}`;
        if (ctx.saveArtifact) {
          const id = await ctx.saveArtifact(content, { tool: "browser_extract", toolCallId: ctx.toolCallId });
          memory += `; kept whole as artifact ${id} (read_artifact)`;
        }
        return { content, longTermMemory: memory, includeOutputOnlyOnce: true };
      });
    },
  };
}

export const BROWSER_TOOL_NAMES = [
  "browser_navigate",
  "browser_back",
  "browser_click",
  "browser_type",
  "browser_select",
  "browser_scroll",
  "browser_press",
  "browser_wait",
  "browser_tabs",
  "browser_screenshot",
  "browser_extract",
] as const;
