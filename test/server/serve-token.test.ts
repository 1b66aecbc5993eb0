// The serve token: made once on first start (0600, 32 random bytes), read back after, agreed on
// by servers starting together; a chosen token (env or file) wins and must be strong and private.
import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { isConfiguredToken, loadServeToken } from "../../src/server/index.js";

describe("loadServeToken", () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "reson-token-"));
  });
  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it("creates $RESON_HOME/serve-token on first start, mode 0600, and reads the same token after", async () => {
    const home = join(dir, "home");
    const first = await loadServeToken({ home, env: {} });
    expect(first).toMatchObject({ source: "home", created: true, path: join(home, "serve-token") });
    expect(first.value).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(statSync(first.path!).mode & 0o777).toBe(0o600);
    expect(statSync(home).mode & 0o777).toBe(0o700);
    expect(readFileSync(first.path!, "utf8").trim()).toBe(first.value);
    const again = await loadServeToken({ home, env: {} });
    expect(again).toMatchObject({ value: first.value, created: false });
    expect(isConfiguredToken(again)).toBe(false);
  });

  it("gives servers that start together one token", async () => {
    const home = join(dir, "home");
    const tokens = await Promise.all(Array.from({ length: 8 }, () => loadServeToken({ home, env: {} })));
    expect(new Set(tokens.map((t) => t.value)).size).toBe(1);
    expect(tokens.filter((t) => t.created)).toHaveLength(1);
  });

  it("takes RESON_SERVE_TOKEN, then --token-file, over the file in $RESON_HOME; both count as configured", async () => {
    const home = join(dir, "home");
    const chosen = "c".repeat(40);
    const fromEnv = await loadServeToken({
      home,
      env: { RESON_SERVE_TOKEN: chosen },
      tokenFile: "/nonexistent",
    });
    expect(fromEnv).toMatchObject({ value: chosen, source: "env", created: false });
    expect(isConfiguredToken(fromEnv)).toBe(true);
    const file = join(dir, "token");
    writeFileSync(file, `${"f".repeat(44)}\n`, { mode: 0o600 });
    const fromFile = await loadServeToken({ home, env: {}, tokenFile: file });
    expect(fromFile).toMatchObject({ value: "f".repeat(44), source: "token-file" });
    expect(isConfiguredToken(fromFile)).toBe(true);
  });

  it("refuses a weak token and a token file others can read, saying how to fix it", async () => {
    const home = join(dir, "home");
    await expect(loadServeToken({ home, env: { RESON_SERVE_TOKEN: "hunter2" } })).rejects.toMatchObject({
      code: "usage_error",
      hint: expect.stringContaining("openssl rand"),
    });
    const file = join(dir, "token");
    writeFileSync(file, "g".repeat(44), { mode: 0o600 });
    chmodSync(file, 0o644);
    await expect(loadServeToken({ home, env: {}, tokenFile: file })).rejects.toMatchObject({
      code: "usage_error",
      hint: `Run: chmod 600 ${file}`,
    });
    await expect(loadServeToken({ home, env: {}, tokenFile: join(dir, "missing") })).rejects.toMatchObject({
      code: "usage_error",
    });
  });

  it("never puts the token in an error message", async () => {
    const weak = "weak token with spaces";
    const error = await loadServeToken({ home: dir, env: { RESON_SERVE_TOKEN: weak } }).catch(
      (e: unknown) => e,
    );
    expect(JSON.stringify(error)).not.toContain(weak);
    expect(String((error as Error).message)).not.toContain(weak);
  });
});
