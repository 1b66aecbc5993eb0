import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { FileOAuthProvider, oauthFile } from "../../src/mcp/index.js";

let home: string;
beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), "reson-oauth-"));
});
afterEach(() => rmSync(home, { recursive: true, force: true }));

describe("kept OAuth logins", () => {
  test("nothing is written until there is a login; then the file is 0600 in a 0700 folder", async () => {
    const url = "https://mcp.example.com/mcp";
    const provider = await FileOAuthProvider.open(home, url);
    expect(() => statSync(oauthFile(home, url))).toThrow();
    expect(provider.redirectUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);
    await provider.saveTokens(
      { access_token: "a", token_type: "Bearer", refresh_token: "r" },
      { issuer: "https://auth.example.com" },
    );
    expect(statSync(oauthFile(home, url)).mode & 0o777).toBe(0o600);
    expect(statSync(join(home, "mcp-oauth")).mode & 0o777).toBe(0o700);
  });

  test("tokens are kept by issuer; a request without one gets the last saved, and the redirect port stays", async () => {
    const url = "https://mcp.example.com/mcp";
    const first = await FileOAuthProvider.open(home, url);
    await first.saveTokens({ access_token: "one", token_type: "Bearer" }, { issuer: "https://a" });
    await first.saveTokens({ access_token: "two", token_type: "Bearer" }, { issuer: "https://b" });
    const again = await FileOAuthProvider.open(home, url);
    expect(again.tokens({ issuer: "https://a" })?.access_token).toBe("one");
    expect(again.tokens()?.access_token).toBe("two");
    expect(again.redirectUrl).toBe(first.redirectUrl);
    await again.invalidateCredentials("tokens");
    expect((await FileOAuthProvider.open(home, url)).tokens()).toBeUndefined();
  });

  test("a redirect with another state than the one sent is refused", async () => {
    const provider = await FileOAuthProvider.open(home, "https://x/mcp");
    const state = provider.state();
    expect(() => provider.checkState(new URLSearchParams({ code: "c", state }))).not.toThrow();
    expect(() => provider.checkState(new URLSearchParams({ code: "c", state: "forged" }))).toThrow(
      /unexpected state/,
    );
  });
});
