import { chmodSync, chownSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { isResonError, type ResonError } from "../../src/core/errors.js";
import { SecretVault } from "../../src/secrets/index.js";

let home: string;
let file: string;

beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), "reson-secrets-"));
  file = join(home, "secrets.json");
});
afterEach(() => rmSync(home, { recursive: true, force: true }));

function writeSecrets(content: unknown, mode = 0o600): void {
  writeFileSync(file, typeof content === "string" ? content : JSON.stringify(content), { mode });
  chmodSync(file, mode);
}

async function loadError(env: Record<string, string> = {}): Promise<ResonError> {
  try {
    await SecretVault.load(file, { env });
  } catch (error) {
    if (isResonError(error)) return error;
    throw error;
  }
  throw new Error("expected the load to fail");
}

describe("secrets.json", () => {
  it("a missing file gives an empty vault", async () => {
    const vault = await SecretVault.load(file, { env: {} });
    expect(vault.names()).toEqual([]);
    expect(vault.redactor.size).toBe(0);
  });

  it("loads a 0600 file and registers every value with the redactor", async () => {
    writeSecrets({ "github.com": { gh_token: "ghp_0123456789abcdef" } });
    const vault = await SecretVault.load(file, { env: {} });
    expect(vault.names().map((info) => info.name)).toEqual(["gh_token"]);
    expect(vault.redactor.redact("token ghp_0123456789abcdef")).toBe("token <secret>gh_token</secret>");
  });

  it("accepts modes stricter than 0600", async () => {
    writeSecrets({ "github.com": { gh_token: "ghp_0123456789abcdef" } }, 0o400);
    await expect(SecretVault.load(file, { env: {} })).resolves.toBeInstanceOf(SecretVault);
  });

  it.each([0o644, 0o640, 0o604, 0o660, 0o666])(
    "refuses a file with mode %o, hinting chmod 600",
    async (mode) => {
      writeSecrets({ "github.com": { gh_token: "ghp_0123456789abcdef" } }, mode);
      const error = await loadError();
      expect(error.code).toBe("secrets_file_insecure");
      expect(error.hint).toBe(`chmod 600 ${file}`);
      expect(error.message).not.toContain("ghp_");
    },
  );

  it.runIf(process.getuid?.() === 0)("refuses a file that belongs to another user", async () => {
    writeSecrets({ "github.com": { gh_token: "ghp_0123456789abcdef" } });
    chownSync(file, 65534, 65534);
    const error = await loadError();
    expect(error.code).toBe("secrets_file_insecure");
    expect(error.message).toContain("belongs to user 65534");
  });

  it("reports invalid JSON by position, without quoting the text around it", async () => {
    writeSecrets('{ "github.com": { "gh_token": ghp_0123456789abcdef } }');
    const error = await loadError();
    expect(error.code).toBe("secrets_file_invalid");
    expect(
      JSON.stringify({ message: error.message, hint: error.hint, details: error.details }),
    ).not.toContain("ghp_");
    writeSecrets('{ "github.com": { "gh_token": "ghp_0123456789abcdef');
    const unterminated = await loadError();
    expect(unterminated.message).toMatch(/line 1, column \d+/);
    expect(unterminated.message).not.toContain("ghp_");
  });

  it.each([
    [[], "$: expected an object of scopes"],
    [{ "github.com": "ghp_0123456789abcdef" }, '$["github.com"]: expected an object of secrets'],
    [{ "github.com": { gh_token: 12345678901 } }, '$["github.com"].gh_token: expected a string or { "env"'],
    [{ "github.com": { gh_token: { env: "A", extra: 1 } } }, '$["github.com"].gh_token: expected a string'],
    [
      { "github.com": { gh_token: { env: "1BAD" } } },
      '$["github.com"].gh_token.env: not a valid variable name',
    ],
    [{ "github.com": { "bad name": "ghp_0123456789abcdef" } }, '$["github.com"]["bad name"]: a secret name'],
    [{ "github.com": { ["x".repeat(65)]: "ghp_0123456789abcdef" } }, "a secret name is 1 to 64 characters"],
    [{ "*google.com": { gh_token: "ghp_0123456789abcdef" } }, "$[\"*google.com\"]: '*' may only stand"],
    [{ "workspace:relative/dir": { gh_token: "ghp_0123456789abcdef" } }, "absolute path or glob"],
    [{ "github.com": { pin: "1234" } }, '$["github.com"].pin: the value is shorter than 8'],
    [{ "github.com": { nul: "abc\u0000defghij" } }, "NUL"],
    [{ "github.com": { gh_2fa_code: "not base32!" } }, "base32"],
    [{ "github.com": { gh: "otpauth://hotp/x?secret=JBSWY3DPEHPK3PXP&counter=1" } }, "only otpauth://totp"],
  ])("refuses a bad shape with the JSON path of the problem (%j)", async (document, expected) => {
    writeSecrets(document);
    const error = await loadError();
    expect(error.code).toBe("secrets_file_invalid");
    expect(error.message).toContain(expected);
    expect(error.message).not.toMatch(/ghp_|1234|abc|JBSW/);
  });

  it("reads { env } values from the environment it is given, not process.env", async () => {
    writeSecrets({ "github.com": { gh_token: { env: "RESON_TEST_GH_TOKEN" } } });
    process.env.RESON_TEST_GH_TOKEN = "from-process-env-value";
    try {
      const vault = await SecretVault.load(file, { env: { RESON_TEST_GH_TOKEN: "from-given-env-value" } });
      expect(vault.substituteArgs("<secret>gh_token</secret>", { url: "https://github.com" }).args).toBe(
        "from-given-env-value",
      );
      expect(vault.redactor.redact("from-process-env-value")).toBe("from-process-env-value");
    } finally {
      delete process.env.RESON_TEST_GH_TOKEN;
    }
  });

  it("leaves out a secret whose variable is not set, with a warning", async () => {
    writeSecrets({
      "github.com": { gh_token: { env: "UNSET_VARIABLE" }, other: "long-enough-value" },
    });
    const vault = await SecretVault.load(file, { env: { UNSET_VARIABLE: "" } });
    expect(vault.names().map((info) => info.name)).toEqual(["other"]);
    expect(vault.warnings).toEqual([expect.stringContaining("gh_token")]);
    expect(vault.warnings[0]).toContain("not set");
  });

  it("refuses a short value from the environment without quoting it", async () => {
    writeSecrets({ "github.com": { pin: { env: "PIN" } } });
    const error = await loadError({ PIN: "4711" });
    expect(error.message).toContain("shorter than 8");
    expect(error.message).not.toContain("4711");
  });
});
