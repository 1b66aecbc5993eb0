// The small helpers of the store's public surface, and its promise that importing it is cheap.
import { execFile } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseDuration, projectKey } from "../../src/store/index.js";
import { type BuiltStore, buildStore } from "./built-store.js";
import { rejection } from "./contract.js";

describe("parseDuration", () => {
  it.each([
    ["30d", 30 * 86_400_000],
    ["12h", 12 * 3_600_000],
    ["90m", 90 * 60_000],
    ["45s", 45_000],
    ["0d", 0],
    [" 7D ", 7 * 86_400_000],
  ])("reads %j as %d ms", (text, ms) => {
    expect(parseDuration(text)).toBe(ms);
  });

  it.each(["", "30", "d", "1.5h", "-3d", "3w", "3 days", "12hh", "99999999999999999999d"])(
    "refuses %j with a usage error that shows the form",
    async (text) => {
      const error = await rejection(Promise.resolve().then(() => parseDuration(text)));
      expect(error.code).toBe("usage_error");
      expect(error.hint).toContain("30d");
    },
  );
});

describe("projectKey", () => {
  it("is the sha256 of the real path, in hex, the same every time", () => {
    expect(projectKey("/home/ada/project")).toMatch(/^[0-9a-f]{64}$/);
    expect(projectKey("/home/ada/project")).toBe(projectKey("/home/ada/project"));
    expect(projectKey("/home/ada/project")).not.toBe(projectKey("/home/ada/project2"));
    // sha256("") is well known: the hash is of the path's UTF-8 bytes and nothing else.
    expect(projectKey("")).toBe("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  });
});

describe("loading the store", () => {
  let built: BuiltStore;
  let home: string;
  beforeAll(async () => {
    built = await buildStore();
    home = await mkdtemp(join(tmpdir(), "reson-store-lazy-"));
  });
  afterAll(async () => {
    await built.cleanup();
    await rm(home, { recursive: true, force: true });
  });

  it("loads no database driver until a store is opened, and then only the one it needs", async () => {
    const script = `
      import { createRequire } from "node:module";
      const loaded = (name) => Object.keys(createRequire(import.meta.url).cache).some((p) => p.includes("/node_modules/" + name + "/"));
      const { openStore } = await import(${JSON.stringify(built.indexUrl)});
      const before = { sqlite: loaded("better-sqlite3"), pg: loaded("pg") };
      const store = await openStore({ home: ${JSON.stringify(home)} });
      await store.close();
      console.log(JSON.stringify({ before, after: { sqlite: loaded("better-sqlite3"), pg: loaded("pg") } }));
    `;
    const { stdout } = await promisify(execFile)(process.execPath, ["--input-type=module", "-e", script], {
      cwd: join(import.meta.dirname, "../.."),
    });
    expect(JSON.parse(stdout)).toEqual({
      before: { sqlite: false, pg: false },
      after: { sqlite: true, pg: false },
    });
  });
});
