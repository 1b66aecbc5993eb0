// Where the first paint of a long run's page goes: the same run as bench/web-first-paint.mjs
// (N quick steps on the fake model), its page opened cold in Chromium with the CDP profiler on,
// from navigation to the whole waterfall drawn; prints the functions with the most self time
// (the page's script bundled unminified for the profile, so its names are readable) and the
// page's API requests with their times.
//   npm run build && node bench/web-first-paint-profile.mjs [--steps 500] [--top 25]
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { build } from "esbuild";
import { runnerImport } from "vite";

const ROOT = resolve(import.meta.dirname, "..");
const arg = (name, fallback) => {
  const at = process.argv.indexOf(`--${name}`);
  return at === -1 ? fallback : Number(process.argv[at + 1]);
};
const steps = arg("steps", 500);
const top = arg("top", 25);
const load = async (file) =>
  (await runnerImport(join(ROOT, file), { configFile: false, logLevel: "silent" })).module;
const { startViewerServe } = await load("test/support/viewer-run.ts");
const { launchChromium } = await load("test/support/chromium.ts");

const bundle = join(mkdtempSync(join(tmpdir(), "reson-profile-")), "app.js");
await build({
  absWorkingDir: ROOT,
  entryPoints: ["web/src/main.ts"],
  outfile: bundle,
  bundle: true,
  format: "esm",
  platform: "browser",
  target: ["es2022"],
  minify: false,
  keepNames: true,
  logLevel: "warning",
});

const serve = await startViewerServe();
const browser = await launchChromium();
try {
  const runId = await serve.startRun(`long run of ${steps} steps`, {
    permissionMode: "bypass",
    maxIterations: steps + 10,
  });
  await serve.waitForRun(runId, undefined, 900_000);
  const context = await browser.newContext({ viewport: { width: 1440, height: 1000 } });
  const page = await context.newPage();
  await page.route("**/web/app.js", (route) =>
    route.fulfill({ contentType: "text/javascript", body: readFileSync(bundle, "utf8") }),
  );
  const requests = [];
  page.on("requestfinished", (request) => {
    const timing = request.timing();
    if (!request.url().includes("/web/"))
      requests.push(
        `${request.method()} ${new URL(request.url()).pathname}${new URL(request.url()).search} ${timing.responseEnd.toFixed(0)} ms`,
      );
  });
  await page.goto(`${serve.url}/`);
  await page.fill("#token", serve.token);
  await page.click("button[type=submit]");
  await page.waitForSelector("h1:text('Sessions')");
  await page.goto("about:blank");
  requests.length = 0;

  const cdp = await context.newCDPSession(page);
  await cdp.send("Profiler.enable");
  await cdp.send("Profiler.setSamplingInterval", { interval: 100 });
  await cdp.send("Profiler.start");
  const start = Date.now();
  await page.goto(`${serve.url}/#/runs/${runId}`);
  await page.waitForSelector(`#waterfall .bars[data-count='${steps * 2 - 1}']`, { timeout: 60_000 });
  await page.waitForSelector("#chart-tokens svg", { timeout: 60_000 });
  const drawn = Date.now() - start;
  const { profile } = await cdp.send("Profiler.stop");

  // Self time per function from the samples.
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const self = new Map();
  const deltas = profile.timeDeltas ?? [];
  profile.samples.forEach((id, i) => {
    const frame = byId.get(id).callFrame;
    const url = frame.url.split("/").pop() || "";
    const key = `${frame.functionName || "(anonymous)"} ${url}:${frame.lineNumber + 1}`;
    self.set(key, (self.get(key) ?? 0) + (deltas[i + 1] ?? 0) / 1000);
  });
  const total = [...self.values()].reduce((a, b) => a + b, 0);
  console.log(`${steps}-step run drawn in ${drawn} ms; profiled ${total.toFixed(0)} ms of samples`);
  for (const [name, ms] of [...self.entries()].sort((a, b) => b[1] - a[1]).slice(0, top))
    console.log(`${ms.toFixed(1).padStart(8)} ms  ${name}`);
  console.log("requests (response end from request start):");
  for (const line of requests) console.log(`  ${line}`);

  // The server's side alone: the run's events read as the page reads them, from Node; a new
  // limit each time is a page not kept yet (read from the store), the same one a kept page.
  const median = async (limitOf) => {
    const times = [];
    for (let i = 0; i < 15; i++) {
      const at = performance.now();
      const url = `${serve.url}/runs/${runId}/events?format=json&after=0&limit=${limitOf(i)}`;
      const response = await fetch(url, { headers: { authorization: `Bearer ${serve.token}` } });
      await response.arrayBuffer();
      times.push(performance.now() - at);
    }
    return times.sort((a, b) => a - b)[7].toFixed(1);
  };
  const fresh = await median((i) => 4999 - i);
  const kept = await median(() => 5000);
  console.log(`GET events (json, whole run) from Node, median of 15: read ${fresh} ms, kept ${kept} ms`);
} finally {
  await browser.close();
  await serve.close();
}
