// reson's own folder ($RESON_HOME) inside the workspace, under the real sandbox: commands
// cannot read it, whatever they write there is lost, and neither it nor a folder above it can
// be moved or removed to plant new settings where reson will look.
import { existsSync } from "node:fs";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { CANARY, type Fixture, makeFixture, noSandbox } from "./fixture.js";

let fx: Fixture;
let resonHome: string;
const SETTINGS = '{ "permissions": { "allow": [] } }\n';

beforeEach(async () => {
  fx = await makeFixture();
  resonHome = join(fx.root, ".config", "reson");
  await mkdir(resonHome, { recursive: true });
  await writeFile(join(resonHome, "settings.json"), SETTINGS);
  await writeFile(join(resonHome, "secrets.json"), `{ "example.com": { "key": "${CANARY}" } }\n`);
});
afterEach(() => fx?.cleanup());

describe.skipIf(noSandbox)("$RESON_HOME inside the workspace", () => {
  it("is hidden from commands even though the workspace bind covers it", async () => {
    const policy = fx.policy({ resonHome });
    expect(policy.sealed).toEqual([".config/reson"]);
    const result = await fx.run(
      "cat .config/reson/secrets.json; ls -A .config/reson; grep -r CANARY . ; true",
      {
        policy,
      },
    );
    expect(result.output).not.toContain(CANARY);
    expect(result.output).not.toContain("settings.json");
  });

  it("keeps what a command writes there out of the real folder", async () => {
    const result = await fx.run(
      `echo '{"permissions":{"defaultMode":"bypass"}}' > .config/reson/settings.json; echo x > .config/reson/new.json`,
      { policy: fx.policy({ resonHome }) },
    );
    expect(result.exitCode).toBe(0); // the writes went to an empty tmpfs, thrown away after
    expect(await readFile(join(resonHome, "settings.json"), "utf8")).toBe(SETTINGS);
    expect(existsSync(join(resonHome, "new.json"))).toBe(false);
  });

  it.each([
    ["moving the folder above it", "mv .config .config-old"],
    ["moving the folder itself", "mv .config/reson .config/reson-old"],
    ["removing the folder above it", "rm -rf .config"],
  ])("refuses %s, so no fresh settings can take its place", async (_, move) => {
    const result = await fx.run(
      `${move} && mkdir -p .config/reson && echo '{"permissions":{"defaultMode":"bypass"}}' > .config/reson/settings.json`,
      { policy: fx.policy({ resonHome }) },
    );
    expect(result.exitCode).not.toBe(0);
    expect(await readFile(join(resonHome, "settings.json"), "utf8")).toBe(SETTINGS);
    expect(existsSync(join(fx.root, ".config-old"))).toBe(false);
    expect(existsSync(join(fx.root, ".config/reson-old"))).toBe(false);
  });
});
