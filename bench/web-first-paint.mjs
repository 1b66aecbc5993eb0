// The web view's first paint of a long run: a run of 500 steps (999 calls) on the fake model,
// then its page opened again and again in Chromium on loopback, beside a 10-step run's page in
// the same turn (the baseline: what a short run costs the same page). Each page is opened two
// ways: "again" (a tab that had the page before: its HTTP cache holds the script and stylesheet)
// and "first" (a new browser profile: nothing cached; the token put in the tab as a sign-in
// would). Timed: in the page, from navigation to the whole run in the DOM (the waterfall with
// all its calls, the charts) and to the frame after it ("painted"); from Node, the same wait
// as Playwright sees it ("drawn, harness": navigation and polling over CDP included); Chromium's
// first contentful paint. Medians of --rounds. Target: the 500-step page drawn within 1 s.
// --before <dir>: also an earlier build in the same turns. A checkout with its build (bin/ and
// dist/, e.g. main built in /tmp) runs its own server with its own runs; a dist/web folder
// (app.js alone) serves that script to this build's server in place of the new one.
//   npm run build && node bench/web-first-paint.mjs [--steps 500] [--rounds 9] [--before dir]
import { existsSync, readFileSync } from "node:fs";
import { loadavg } from "node:os";
import { join, resolve } from "node:path";
import { runnerImport } from "vite";

const ROOT = resolve(import.meta.dirname, "..");
const arg = (name, fallback) => {
  const at = process.argv.indexOf(`--${name}`);
  return at === -1 ? fallback : Number(process.argv[at + 1]);
};
const steps = arg("steps", 500);
const rounds = arg("rounds", 9);
const beforeAt = process.argv.indexOf("--before");
const beforeDir = beforeAt === -1 ? undefined : resolve(process.argv[beforeAt + 1]);
const beforeBuild = beforeDir && existsSync(join(beforeDir, "bin", "reson.js")) ? beforeDir : undefined;
const beforeScript = beforeDir && !beforeBuild ? readFileSync(join(beforeDir, "app.js"), "utf8") : undefined;
const load = async (root, file) =>
  (await runnerImport(join(root, file), { configFile: false, logLevel: "silent" })).module;
const { launchChromium } = await load(ROOT, "test/support/chromium.ts");

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};
const loads = () =>
  loadavg()
    .map((l) => l.toFixed(1))
    .join(" ");

/**
 * In the page, before its own scripts: when the whole run is in the DOM, and the frame after.
 * (The check runs on every change of the DOM; a page waits for nothing it does.)
 */
function watchDrawn(counts) {
  const count = counts[location.hash.split("/")[2]];
  if (!count) return;
  const marks = {};
  window.__firstPaint = marks;
  const check = () => {
    if (marks.drawn) return;
    if (!document.querySelector(`#waterfall .bars[data-count='${count}']`)) return;
    if (!document.querySelector("#chart-tokens svg")) return;
    marks.drawn = performance.now();
    requestAnimationFrame(() => setTimeout(() => (marks.painted = performance.now())));
  };
  new MutationObserver(check).observe(document, { subtree: true, childList: true });
}

/** A server with a 500-step and a 10-step run, from the build at `root`. */
async function serveRuns(root) {
  const { startViewerServe } = await load(root, "test/support/viewer-run.ts");
  const serve = await startViewerServe();
  const made = Date.now();
  const long = await serve.startRun(`long run of ${steps} steps`, {
    permissionMode: "bypass",
    maxIterations: steps + 10,
  });
  const short = await serve.startRun("long run of 10 steps", { permissionMode: "bypass" });
  await serve.waitForRun(long, undefined, 900_000);
  await serve.waitForRun(short, undefined, 60_000);
  console.log(`${root}: made the runs in ${((Date.now() - made) / 1000).toFixed(1)} s; load ${loads()}`);
  const counts = { [long]: steps * 2 - 1, [short]: 10 * 2 - 1 };
  return { serve, counts, runs: { long: [long, steps], short: [short, 10] } };
}

const browser = await launchChromium();
const servers = [];
try {
  const after = await serveRuns(ROOT);
  servers.push(after.serve);
  const before = beforeBuild ? await serveRuns(beforeBuild) : after;
  if (beforeBuild) servers.push(before.serve);

  /** A tab signed in to `serve` (the "again" pages: its cache is kept from open to open). */
  async function signedInTab({ serve, counts }, script) {
    const context = await browser.newContext({ viewport: { width: 1440, height: 1000 } });
    const page = await context.newPage();
    await page.addInitScript(watchDrawn, counts);
    if (script)
      await page.route("**/web/app.js", (route) =>
        route.fulfill({ contentType: "text/javascript", body: script }),
      );
    await page.goto(`${serve.url}/`);
    await page.fill("#token", serve.token);
    await page.click("button[type=submit]");
    await page.waitForSelector("h1:text('Sessions')");
    return page;
  }

  /** One open of a run's page; `page` undefined: a new profile's first visit. */
  async function open({ serve, counts, runs }, which, script, page) {
    const [runId, stepCount] = runs[which];
    const count = stepCount * 2 - 1;
    const fresh = !page;
    let context;
    if (fresh) {
      context = await browser.newContext({ viewport: { width: 1440, height: 1000 } });
      await context.addInitScript((token) => sessionStorage.setItem("reson.token", token), serve.token);
      page = await context.newPage();
      await page.addInitScript(watchDrawn, counts);
      if (script)
        await page.route("**/web/app.js", (route) =>
          route.fulfill({ contentType: "text/javascript", body: script }),
        );
    } else await page.goto("about:blank");
    const start = Date.now();
    await page.goto(`${serve.url}/#/runs/${runId}`);
    // The whole run drawn: its waterfall holds every call (a step's model call and tool call,
    // the last step's answer alone), and the charts are there.
    await page.waitForSelector(`#waterfall .bars[data-count='${count}']`, { timeout: 60_000 });
    await page.waitForSelector("#chart-tokens svg", { timeout: 60_000 });
    const harness = Date.now() - start;
    await page.waitForFunction("window.__firstPaint?.painted", undefined, { timeout: 60_000 });
    const marks = await page.evaluate(() => ({
      ...window.__firstPaint,
      fcp: performance.getEntriesByType("paint").find((e) => e.name === "first-contentful-paint")?.startTime,
    }));
    if (fresh) await context.close();
    return { drawn: marks.drawn, painted: marks.painted, harness, fcp: marks.fcp ?? -1 };
  }

  const tabs = { after: await signedInTab(after) };
  if (beforeDir) tabs.before = await signedInTab(before, beforeScript);
  const targets = Object.keys(tabs);
  const cases = [];
  for (const build of targets)
    for (const which of ["long", "short"])
      for (const kind of ["again", "first"]) cases.push({ build, which, kind });
  const run = (c) =>
    open(
      c.build === "before" ? before : after,
      c.which,
      c.build === "before" ? beforeScript : undefined,
      c.kind === "again" ? tabs[c.build] : undefined,
    );
  for (const c of cases) await run(c); // warm-up: the browser's and the servers' first loads
  const results = new Map(cases.map((c) => [c, []]));
  for (let round = 0; round < rounds; round++) {
    // Interleaved, and the order alternates: all see the same machine.
    const order = round % 2 ? [...cases].reverse() : cases;
    for (const c of order) results.get(c).push(await run(c));
  }

  const ms = (list, key) =>
    median(list.map((r) => r[key]))
      .toFixed(0)
      .padStart(5);
  console.log(`median of ${rounds} rounds, Chromium headless on loopback; load ${loads()}`);
  console.log("page                   drawn  painted  harness   fcp   (ms from navigation)");
  for (const c of cases) {
    const list = results.get(c);
    const name = `${c.which === "long" ? steps : 10} steps, ${c.build}, ${c.kind}`;
    console.log(
      `${name.padEnd(22)} ${ms(list, "drawn")}  ${ms(list, "painted")}    ${ms(list, "harness")} ${ms(list, "fcp")}`,
    );
  }
  const drawnOf = (build, which, kind) =>
    median(
      results
        .get(cases.find((c) => c.build === build && c.which === which && c.kind === kind))
        .map((r) => r.drawn),
    );
  for (const kind of ["again", "first"]) {
    const ratio = (drawnOf("after", "long", kind) / drawnOf("after", "short", kind)).toFixed(2);
    const vs = beforeDir
      ? `; after/before ${steps} steps ${(drawnOf("after", "long", kind) / drawnOf("before", "long", kind)).toFixed(2)} ×, 10 steps ${(drawnOf("after", "short", kind) / drawnOf("before", "short", kind)).toFixed(2)} ×`
      : "";
    console.log(`${kind}: ${steps}/10 steps ${ratio} ×${vs}`);
  }
} finally {
  await browser.close();
  for (const serve of servers) await serve.close();
}
