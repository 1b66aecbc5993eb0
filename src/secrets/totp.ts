// Two-factor codes: a secret named `…_2fa_code` (Browser-Use's `bu_2fa_code` included) or
// holding an `otpauth://totp/…` URI stands for the current TOTP code, not for its seed.
import { Secret, TOTP, URI } from "otpauth";

export interface TotpGenerator {
  /** The code at `timestampMs`. */
  code(timestampMs: number): string;
  /** The seed as written (base32 or the whole URI) and any other form of it, to redact. */
  readonly seeds: readonly string[];
}

export function isTotpSecret(name: string, value: string): boolean {
  return /_2fa_code$|bu_2fa_code$/.test(name) || value.toLowerCase().startsWith("otpauth://");
}

/**
 * A plain value is a base32 seed (spaces, dashes and padding ignored, any case) for SHA-1,
 * 6 digits, 30 s; an otpauth URI carries its own settings. The reason never quotes the value.
 */
export function parseTotp(value: string): { ok: true; totp: TotpGenerator } | { ok: false; reason: string } {
  if (value.toLowerCase().startsWith("otpauth://")) return parseUri(value);
  const base32 = value.replace(/[\s=-]/g, "").toUpperCase();
  if (!/^[A-Z2-7]+$/.test(base32)) return { ok: false, reason: "a 2FA seed must be base32 (A-Z, 2-7)" };
  const secret = Secret.fromBase32(base32);
  return {
    ok: true,
    totp: {
      code: (timestampMs) => TOTP.generate({ secret, timestamp: timestampMs }),
      seeds: [value, base32],
    },
  };
}

function parseUri(value: string): { ok: true; totp: TotpGenerator } | { ok: false; reason: string } {
  let otp: ReturnType<typeof URI.parse>;
  try {
    otp = URI.parse(value);
  } catch {
    return { ok: false, reason: "not a valid otpauth:// URI" };
  }
  if (!(otp instanceof TOTP)) {
    return { ok: false, reason: "only otpauth://totp URIs are supported (an hotp counter cannot be kept)" };
  }
  const written = new URL(value).searchParams.get("secret") ?? "";
  return {
    ok: true,
    totp: {
      code: (timestampMs) => otp.generate({ timestamp: timestampMs }),
      seeds: [value, written, otp.secret.base32],
    },
  };
}
