// README "Install", run for real: a clean clone of this repository's HEAD, `npm ci` (which
// builds dist/) and `npm link` into a prefix of the test's own, then `reson --version` from
// that prefix. Slow (npm ci and the build take a minute or more): one test, a long timeout.
//
// The user's ~/.npmrc (the test writes it) puts npm's global prefix in a temp folder, whose bin
// is on PATH as npm's global bin is for a user, and lets npm prefer the developer's npm cache
// (prefer-offline) so the packages come from there when they are in it.
import { execFileSync } from "node:child_process";
import { realpathSync, writeFileSync } from "node:fs";
import { delimiter, join } from "node:path";
import { describe, expect } from "vitest";
import { REPO } from "./readme-user.js";
import { scenario, useShell, useUser } from "./scenario.js";

const npmCache = execFileSync("npm", ["config", "get", "cache"], { encoding: "utf8" }).trim();

describe("README: Install", () => {
  scenario(
    "git clone <this repository> reson && cd reson",
    async (block) => {
      const user = useUser();
      const prefix = join(user.scratch, "npm-prefix");
      writeFileSync(
        join(user.home, ".npmrc"),
        `prefix=${prefix}\ncache=${npmCache}\nprefer-offline=true\naudit=false\nfund=false\nupdate-notifier=false\n`,
      );
      // No reson on PATH but what `npm link` puts there.
      user.env.PATH = [join(prefix, "bin"), process.env.PATH].join(delimiter);
      const shell = useShell(block, user).replace("<this repository>", REPO);
      const took: string[] = [];
      const timed = async <T>(what: string, step: () => Promise<T>): Promise<T> => {
        const started = Date.now();
        const result = await step();
        took.push(`${what} ${Math.round((Date.now() - started) / 1000)} s`);
        return result;
      };
      await timed("clone", () => shell.run("git clone <this repository> reson && cd reson"));
      const install = await timed("npm ci", () => shell.run("npm ci", { timeoutMs: 600_000 }));
      expect(install.stdout).toContain("npm run build");
      await timed("npm link", () => shell.run("npm link", { timeoutMs: 300_000 }));
      shell.end();
      console.log(`README's install block: ${took.join(", ")}`);

      // The command npm linked into the user's prefix, which is this clone's.
      const found = await shell.probe("command -v reson");
      expect(found.stdout.trim()).toBe(join(prefix, "bin/reson"));
      expect(realpathSync(found.stdout.trim())).toBe(join(user.work, "reson/bin/reson.js"));
      const version = await shell.probe("reson --version");
      const { version: expected } = JSON.parse(
        execFileSync("git", ["show", "HEAD:package.json"], { cwd: REPO, encoding: "utf8" }),
      ) as { version: string };
      expect(version.stdout.trim()).toBe(expected);
    },
    900_000,
  );
});
