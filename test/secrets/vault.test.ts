import { describe, expect, it } from "vitest";
import { SecretVault } from "../../src/secrets/index.js";

const vault = SecretVault.fromDocument(
  {
    "*.example.com": { site_user: "alice@example.com", site_pass: "correct horse battery" },
    "http*://localhost:3000": { dev_key: "dev-key-0123456789" },
    "workspace:/home/me/api": { db_password: "db-pass-0123456789" },
    "workspace:/home/me/**": { npm_token: "npm_0123456789abcdef" },
    "workspace:*": { anywhere_token: "anywhere-0123456789" },
    "other.test": { site_pass: "other site password" },
  },
  { env: {} },
);

describe("SecretVault scopes", () => {
  it("lists names with their scopes in words, never their values", () => {
    const names = vault.names();
    expect(names.map((info) => info.name)).toEqual([
      "site_user",
      "site_pass",
      "dev_key",
      "db_password",
      "npm_token",
      "anywhere_token",
    ]);
    expect(names.find((info) => info.name === "site_pass")).toEqual({
      name: "site_pass",
      scopes: ["*.example.com", "other.test"],
      description: "usable on URLs matching *.example.com, URLs matching other.test",
    });
    expect(names.find((info) => info.name === "npm_token")!.description).toBe(
      "usable on commands in workspaces matching /home/me/**",
    );
    expect(JSON.stringify(names)).not.toMatch(/alice@|horse|0123456789/);
  });

  it.each([
    ["https://example.com/login", ["site_user", "site_pass"]],
    ["https://shop.example.com", ["site_user", "site_pass"]],
    ["http://example.com", []],
    ["https://example.com@evil.test", []],
    ["http://localhost:3000/", ["dev_key"]],
    ["http://localhost:3001/", []],
    ["https://other.test", ["site_pass"]],
    ["about:blank", []],
  ])("forUrl(%s) → %j", (url, names) => {
    expect(vault.forUrl(url)).toEqual(names);
  });

  it.each([
    ["/home/me/api", ["db_password", "npm_token", "anywhere_token"]],
    ["/home/me/api/", ["db_password", "npm_token", "anywhere_token"]],
    ["/home/me/web", ["npm_token", "anywhere_token"]],
    ["/home/me", ["npm_token", "anywhere_token"]],
    ["/srv/other", ["anywhere_token"]],
  ])("forWorkspace(%s) → %j", (root, names) => {
    expect(vault.forWorkspace(root)).toEqual(names);
  });
});

describe("SecretVault.substituteArgs", () => {
  it("fills placeholders in a deep copy and leaves the input untouched", () => {
    const input = {
      selector: "#password",
      text: "<secret>site_pass</secret>",
      nested: [{ login: "user <secret>site_user</secret>!" }, 42, null, true],
    };
    const before = structuredClone(input);
    const result = vault.substituteArgs(input, { url: "https://example.com" });
    expect(result.args).toEqual({
      selector: "#password",
      text: "correct horse battery",
      nested: [{ login: "user alice@example.com!" }, 42, null, true],
    });
    expect(input).toEqual(before);
    expect(result.used).toEqual(["site_pass", "site_user"]);
    expect(result.missing).toEqual([]);
    expect(result.outOfScope).toEqual([]);
  });

  it("uses the value of the scope that matches when a name has several", () => {
    const result = vault.substituteArgs("<secret>site_pass</secret>", { url: "https://other.test/" });
    expect(result.args).toBe("other site password");
  });

  it("replaces a string that is exactly the name of a secret allowed here, as Browser-Use does", () => {
    expect(vault.substituteArgs({ text: "site_pass" }, { url: "https://example.com" })).toEqual({
      args: { text: "correct horse battery" },
      used: ["site_pass"],
      missing: [],
      outOfScope: [],
    });
    // Out of scope, a bare word stays an ordinary word.
    expect(vault.substituteArgs({ text: "site_pass" }, { url: "https://evil.test" }).args).toEqual({
      text: "site_pass",
    });
  });

  it("reports unknown and out-of-scope placeholders and leaves them as written", () => {
    const result = vault.substituteArgs(
      ["<secret>nope</secret>", "<secret>site_pass</secret>", "<secret>db_password</secret>"],
      { url: "https://evil.test" },
    );
    expect(result.args).toEqual([
      "<secret>nope</secret>",
      "<secret>site_pass</secret>",
      "<secret>db_password</secret>",
    ]);
    expect(result.used).toEqual([]);
    expect(result.missing).toEqual(["nope"]);
    expect(result.outOfScope).toEqual(["site_pass", "db_password"]);
  });

  it("applies workspace secrets to a tool that runs in a workspace", () => {
    const result = vault.substituteArgs(
      { token: "<secret>npm_token</secret>" },
      { workspaceRoot: "/home/me/web" },
    );
    expect(result.args).toEqual({ token: "npm_0123456789abcdef" });
  });

  it("allows nothing where neither a URL nor a workspace is given", () => {
    expect(vault.substituteArgs("<secret>anywhere_token</secret>", {}).outOfScope).toEqual([
      "anywhere_token",
    ]);
  });

  it("redacts a substituted value in a tool's output back to its placeholder", () => {
    const { args } = vault.substituteArgs(
      { body: JSON.stringify({ password: "<secret>site_pass</secret>" }) },
      { url: "https://example.com" },
    );
    const output = `sent ${JSON.stringify(args)} as ${Buffer.from("correct horse battery").toString("base64")}`;
    const redacted = vault.redactor.redact(output);
    expect(redacted).not.toContain("horse");
    expect(redacted).toBe(
      'sent {"body":"{\\"password\\":\\"<secret>site_pass</secret>\\"}"} as <secret>site_pass</secret>',
    );
  });

  it("an empty vault substitutes nothing and redacts nothing", () => {
    const empty = SecretVault.empty();
    expect(empty.names()).toEqual([]);
    expect(empty.substituteArgs({ a: "<secret>x</secret>" }, { url: "https://example.com" })).toEqual({
      args: { a: "<secret>x</secret>" },
      used: [],
      missing: ["x"],
      outOfScope: [],
    });
    expect(empty.redactor.redact("anything")).toBe("anything");
  });
});
