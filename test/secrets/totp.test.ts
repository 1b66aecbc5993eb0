import { Secret } from "otpauth";
import { describe, expect, it } from "vitest";
import { SecretVault } from "../../src/secrets/index.js";

// RFC 6238 appendix B: the seeds are ASCII, the codes 8 digits.
const SHA1_SEED = Secret.fromLatin1("12345678901234567890").base32;
const SHA256_SEED = Secret.fromLatin1("12345678901234567890123456789012").base32;
const VECTORS: [seconds: number, sha1: string, sha256: string][] = [
  [59, "94287082", "46119246"],
  [1111111109, "07081804", "68084774"],
  [1111111111, "14050471", "67062674"],
  [1234567890, "89005924", "91819424"],
  [2000000000, "69279037", "90698825"],
  [20000000000, "65353130", "77737706"],
];

function vaultAt(seconds: number, secrets: Record<string, string>): SecretVault {
  return SecretVault.fromDocument({ "example.com": secrets }, { env: {}, now: () => seconds * 1000 });
}

describe("TOTP secrets", () => {
  it.each(VECTORS)(
    "a base32 seed under a …_2fa_code name gives the RFC 6238 code at %i s",
    (seconds, sha1) => {
      const vault = vaultAt(seconds, {
        login_2fa_code: SHA1_SEED,
        legacy_bu_2fa_code: SHA1_SEED.toLowerCase(),
      });
      const { args, used } = vault.substituteArgs(
        { code: "<secret>login_2fa_code</secret>", legacy: "<secret>legacy_bu_2fa_code</secret>" },
        { url: "https://example.com/login" },
      );
      expect(args).toEqual({ code: sha1.slice(-6), legacy: sha1.slice(-6) });
      expect(used).toEqual(["login_2fa_code", "legacy_bu_2fa_code"]);
    },
  );

  it.each(VECTORS)(
    "an otpauth:// URI carries its own algorithm and digits (%i s)",
    (seconds, _sha1, sha256) => {
      const uri = `otpauth://totp/ACME:alice?secret=${SHA256_SEED}&issuer=ACME&algorithm=SHA256&digits=8&period=30`;
      const vault = vaultAt(seconds, { acme_otp: uri });
      expect(vault.substituteArgs("<secret>acme_otp</secret>", { url: "https://example.com" }).args).toBe(
        sha256,
      );
    },
  );

  it("accepts a seed written in groups, in lower case, as sites show it", () => {
    const grouped = SHA1_SEED.toLowerCase()
      .replace(/(.{4})/g, "$1 ")
      .trim();
    const vault = vaultAt(59, { site_2fa_code: grouped });
    expect(vault.substituteArgs("<secret>site_2fa_code</secret>", { url: "https://example.com" }).args).toBe(
      "287082",
    );
  });

  it("redacts the generated code and the seed, in every form", () => {
    const vault = vaultAt(59, { site_2fa_code: SHA1_SEED });
    vault.substituteArgs("<secret>site_2fa_code</secret>", { url: "https://example.com" });
    expect(vault.redactor.redact(`code 287082 seed ${SHA1_SEED}`)).toBe(
      "code <secret>site_2fa_code</secret> seed <secret>site_2fa_code</secret>",
    );
  });

  it("says in the name list that a TOTP secret is a 2FA code", () => {
    const vault = vaultAt(59, { site_2fa_code: SHA1_SEED });
    expect(vault.names()[0]!.description).toContain("2FA code");
  });
});
