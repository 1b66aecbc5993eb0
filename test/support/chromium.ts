// Debian's Chromium driven by playwright-core, headless, for the web view's tests, screenshots
// and benchmark; and axe-core's check of a page (injected into the test page only, never served).
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { type Browser, chromium, type Page } from "playwright-core";

export const CHROMIUM_PATH = "/usr/bin/chromium";

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--no-first-run",
      "--font-render-hinting=none",
    ],
  });
}

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: Array<{ target: string[]; failureSummary?: string }>;
}

let axeSource: string | undefined;

/**
 * axe-core's violations on the page as it is now (WCAG 2 A and AA and best practices). The page
 * must come from a context made with `bypassCSP: true`: the page's own policy refuses any
 * script but its own.
 */
export async function axeViolations(page: Page): Promise<AxeViolation[]> {
  axeSource ??= readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");
  if (!(await page.evaluate("typeof window.axe !== 'undefined'")))
    await page.addScriptTag({ content: axeSource });
  const result = (await page.evaluate(
    "window.axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] } })",
  )) as { violations: AxeViolation[] };
  return result.violations;
}

/** Violations as lines a failing test prints: the rule, its help and where. */
export function describeViolations(violations: AxeViolation[]): string[] {
  return violations.map(
    (v) =>
      `${v.id} (${v.impact}): ${v.help} at ${v.nodes
        .map((n) => n.target.join(" "))
        .slice(0, 4)
        .join(", ")}`,
  );
}
