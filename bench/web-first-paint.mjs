// The web view's first paint of a long run: a run of 500 steps (999 calls) on the fake model,
// then its page opened again and again in Chromium on loopback; the time from navigation to the
// whole run drawn (the waterfall with all its calls, the charts) and Chromium's first contentful paint,
// medians of --rounds, each round beside a 10-step run's page in the same turn (the baseline:
// what a short run costs the same page). Target: the 500-step page drawn within 1 s.
// With --before <dir>: each round also opens the 500-step page with the page's script from
// <dir>/app.js (an earlier build's dist/web), so before and after are measured in one run.
//   npm run build && node bench/web-first-paint.mjs [--steps 500] [--rounds 9] [--before dir]
import { readFileSync } from "node:fs";
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
const beforeScript =
  beforeAt === -1 ? undefined : readFileSync(join(process.argv[beforeAt + 1], "app.js"), "utf8");
const load = async (file) =>
  (await runnerImport(join(ROOT, file), { configFile: false, logLevel: "silent" })).module;
const { startViewerServe } = await load("test/support/viewer-run.ts");
const { launchChromium } = await load("test/support/chromium.ts");

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

const serve = await startViewerServe();
const browser = await launchChromium();
try {
  const made = Date.now();
  const long = await serve.startRun(`long run of ${steps} steps`, {
    permissionMode: "bypass",
    maxIterations: steps + 10,
  });
  const short = await serve.startRun("long run of 10 steps", { permissionMode: "bypass" });
  await serve.waitForRun(long, undefined, 900_000);
  await serve.waitForRun(short, undefined, 60_000);
  console.log(
    `made the runs in ${((Date.now() - made) / 1000).toFixed(1)} s; load ${loadavg()
      .map((l) => l.toFixed(1))
      .join(" ")}`,
  );

  const context = await browser.newContext({ viewport: { width: 1440, height: 1000 } });
  const page = await context.newPage();
  await page.goto(`${serve.url}/`);
  await page.fill("#token", serve.token);
  await page.click("button[type=submit]");
  await page.waitForSelector("h1:text('Sessions')");

  /** One cold open of a run's page: ms to the whole waterfall, and Chromium's first contentful paint. */
  async function open(runId, stepCount, script) {
    await page.goto("about:blank");
    await page.unroute("**/web/app.js");
    if (script)
      await page.route("**/web/app.js", (route) =>
        route.fulfill({ contentType: "text/javascript", body: script }),
      );
    const start = Date.now();
    await page.goto(`${serve.url}/#/runs/${runId}`);
    // The whole run drawn: its waterfall holds every call (a step's model call and tool call,
    // the last step's answer alone), and the charts are there.
    await page.waitForSelector(`#waterfall .bars[data-count='${stepCount * 2 - 1}']`, { timeout: 60_000 });
    await page.waitForSelector("#chart-tokens svg", { timeout: 60_000 });
    const drawn = Date.now() - start;
    const fcp = await page.evaluate(
      "performance.getEntriesByType('paint').find((e) => e.name === 'first-contentful-paint')?.startTime ?? -1",
    );
    return { drawn, fcp: Number(fcp) };
  }

  await open(short, 10); // warm-up: the browser's and the server's first loads
  const results = { long: [], short: [], before: [] };
  for (let round = 0; round < rounds; round++) {
    // Interleaved, and the order alternates: all see the same machine.
    const order = ["long", "short", ...(beforeScript ? ["before"] : [])];
    if (round % 2) order.reverse();
    for (const which of order)
      results[which].push(
        which === "short"
          ? await open(short, 10)
          : await open(long, steps, which === "before" ? beforeScript : undefined),
      );
  }
  const row = (name, list) =>
    `${name.padEnd(16)} drawn ${median(list.map((r) => r.drawn))
      .toFixed(0)
      .padStart(5)} ms   first contentful paint ${median(list.map((r) => r.fcp))
      .toFixed(0)
      .padStart(4)} ms`;
  console.log(`median of ${rounds} rounds, Chromium headless on loopback`);
  console.log(row(`${steps}-step run`, results.long));
  if (beforeScript) console.log(row(`${steps}, before`, results.before));
  console.log(row("10-step run", results.short));
  console.log(
    `ratio ${steps}/10 steps: ${(median(results.long.map((r) => r.drawn)) / median(results.short.map((r) => r.drawn))).toFixed(2)} ×; load ${loadavg()
      .map((l) => l.toFixed(1))
      .join(" ")}`,
  );
} finally {
  await browser.close();
  await serve.close();
}
