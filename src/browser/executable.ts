// Which Chromium the browser runs: `browser.executablePath`, else the first Chromium or
// Chrome on PATH; and how far its version is from the one the pinned playwright-core was
// built for (a large skew breaks the DevTools protocol in ways that look like random failures).
import { accessSync, constants, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { delimiter, dirname, join } from "node:path";

const CANDIDATES = ["chromium", "chromium-browser", "google-chrome-stable", "google-chrome", "chrome"];
/** Majors apart before doctor and the launch warn. */
export const MAX_SKEW_MAJORS = 2;

export function findChromium(
  configured: string | undefined,
  env: NodeJS.ProcessEnv = process.env,
): string | undefined {
  if (configured) return configured;
  for (const dir of (env.PATH ?? "").split(delimiter)) {
    if (!dir) continue;
    for (const name of CANDIDATES) {
      const path = join(dir, name);
      try {
        accessSync(path, constants.X_OK);
        return path;
      } catch {
        // not here
      }
    }
  }
  return undefined;
}

/** playwright-core's own version and the Chromium version it was built for. */
export function playwrightBuild(): { playwright: string; chromium: string } {
  const require = createRequire(import.meta.url);
  const root = dirname(require.resolve("playwright-core/package.json"));
  const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { version: string };
  const browsers = JSON.parse(readFileSync(join(root, "browsers.json"), "utf8")) as {
    browsers: Array<{ name: string; browserVersion?: string }>;
  };
  const chromium = browsers.browsers.find((b) => b.name === "chromium")?.browserVersion ?? "unknown";
  return { playwright: pkg.version, chromium };
}

export function majorOf(version: string): number | undefined {
  const match = /(\d+)\.\d+/.exec(version);
  return match?.[1] ? Number(match[1]) : undefined;
}

/** A warning when the installed Chromium is too far from the build, else undefined. */
export function skewWarning(installed: string): string | undefined {
  const build = playwrightBuild();
  const have = majorOf(installed);
  const want = majorOf(build.chromium);
  if (have === undefined || want === undefined) return undefined;
  if (Math.abs(have - want) <= MAX_SKEW_MAJORS) return undefined;
  return `Chromium ${have} is ${Math.abs(have - want)} major versions from ${want}, which playwright-core ${build.playwright} was built for; browser tools may fail. Install a Chromium near ${want} or set browser.executablePath to one.`;
}
