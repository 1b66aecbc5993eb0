// The web view's screenshots in README (docs/web-*.png), taken in Chromium from scripted runs
// on the fake model server: a run live (its answer streaming), a run waiting for approval of a
// file edit (its diff in the banner) and a finished run with two sub-agents (a call selected).
// Needs a build (npm run build) and /usr/bin/chromium.
//   node scripts/web-screenshots.mjs [--out docs] [--scheme light|dark]
import { mkdirSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { runnerImport } from "vite";

const ROOT = resolve(import.meta.dirname, "..");
const arg = (name, fallback) => {
  const at = process.argv.indexOf(`--${name}`);
  return at === -1 ? fallback : process.argv[at + 1];
};
const out = resolve(ROOT, arg("out", "docs"));
const scheme = arg("scheme", "light");
const load = async (file) => (await runnerImport(join(ROOT, file), { configFile: false, logLevel: "silent" })).module;
const { NOTES_BEFORE, SHOWCASE_TASK, startViewerServe } = await load("test/support/viewer-run.ts");
const { launchChromium } = await load("test/support/chromium.ts");

mkdirSync(out, { recursive: true });
const serve = await startViewerServe({ slowAnswer: true });
const browser = await launchChromium();
try {
  const context = await browser.newContext({ viewport: { width: 1440, height: 1000 }, colorScheme: scheme });
  const page = await context.newPage();
  await page.goto(`${serve.url}/`);
  await page.fill("#token", serve.token);
  await page.click("button[type=submit]");
  await page.waitForSelector("h1:text('Sessions')");
  const suffix = scheme === "dark" ? "-dark" : "";
  const shot = async (name) => {
    // Let the last frame draw and the pulse settle.
    await page.waitForTimeout(400);
    await page.screenshot({ path: join(out, `web-${name}${suffix}.png`) });
    console.log(join(out, `web-${name}${suffix}.png`));
  };

  // A finished run with sub-agents, the first sub-agent's list_files call selected.
  // On a model with a known price (the fake server answers whatever it is called), for costs.
  const priced = { provider: "openai", model: "gpt-4o" };
  const finished = await serve.startRun(SHOWCASE_TASK, { ...priced, permissionMode: "bypass" });
  await serve.waitForRun(finished, undefined, 120_000);
  const { children } = await serve.api("GET", `/runs/${finished}/trace`);
  await page.goto(`${serve.url}/#/runs/${finished}?sel=${children[0].id}~1~c_ls`);
  await page.waitForSelector("#run-status:text('completed')");
  await page.waitForSelector(".bar-row[data-depth='3']");
  await page.click(`.bar-row[data-run='${children[0].id}'][data-call='c_ls']`);
  await page.evaluate("window.scrollTo(0, 0)");
  await shot("finished-run");

  // The same task waiting for approval of its file edit (sub-agents allowed by a rule), on the
  // notes as they were before the first run edited them.
  writeFileSync(join(serve.workspace.path, "NOTES.md"), NOTES_BEFORE);
  const waiting = await serve.startRun(`${SHOWCASE_TASK}, asking before the edit`, {
    ...priced,
    permissionMode: "default",
    allow: ["subagent"],
  });
  await page.goto(`${serve.url}/#/runs/${waiting}`);
  await page.waitForSelector("#waiting .diff", { timeout: 60_000 }).catch(async (error) => {
    await page.screenshot({ path: join(out, "failed.png"), fullPage: true });
    throw error;
  });
  await page.click(".bar-row[data-call='edit_notes']");
  await page.evaluate("window.scrollTo(0, 0)");
  await shot("pending-approval");
  await page.click("#waiting button:text('Allow once')");

  // Live: its answer streaming, a word at a time.
  await page.waitForSelector("#live-text:text-matches('^The notes now')", { timeout: 120_000 });
  await page.click(".bar-row[data-bar='model'][data-step='8'][data-depth='0']");
  await page.evaluate("window.scrollTo(0, 0)");
  await page.waitForTimeout(1500);
  await shot("live-run");
  await serve.waitForRun(waiting, undefined, 120_000);
} finally {
  await browser.close();
  await serve.close();
}
