// The generic webhook's signature, both ways: HMAC-SHA256 over "<timestamp>.<raw body>" with the
// channel's secret, sent as `X-Reson-Signature: v1=<hex>` beside `X-Reson-Timestamp: <unix s>`.
// Checked in constant time; a timestamp outside the replay window is refused like a forgery, so
// a captured request cannot be played again later.
import { createHmac, timingSafeEqual } from "node:crypto";
import { ResonError } from "../../core/errors.js";

export const SIGNATURE_HEADER = "x-reson-signature";
export const TIMESTAMP_HEADER = "x-reson-timestamp";

export function signWebhook(secret: string, timestampS: number, body: string | Buffer): string {
  const mac = createHmac("sha256", secret);
  mac.update(`${timestampS}.`);
  mac.update(body);
  return `v1=${mac.digest("hex")}`;
}

export function verifyWebhook(options: {
  secret: string;
  body: Buffer;
  signature: string | undefined;
  timestamp: string | undefined;
  replayWindowS: number;
  nowMs?: number;
}): void {
  const refuse = (why: string) =>
    new ResonError("channel_signature_invalid", `The webhook request was refused: ${why}.`, {
      hint: `Sign "<unix seconds>.<raw body>" with HMAC-SHA256 and the channel's secret; send ${TIMESTAMP_HEADER} and ${SIGNATURE_HEADER}: v1=<hex> (README "Channels").`,
    });
  if (!options.signature || !options.timestamp) throw refuse("the signature or timestamp header is missing");
  if (!/^\d{1,12}$/.test(options.timestamp)) throw refuse("the timestamp is not a number of seconds");
  const timestampS = Number(options.timestamp);
  const skewS = Math.abs((options.nowMs ?? Date.now()) / 1000 - timestampS);
  if (skewS > options.replayWindowS)
    throw refuse(`the timestamp is more than ${options.replayWindowS} s away`);
  const expected = Buffer.from(signWebhook(options.secret, timestampS, options.body));
  const given = Buffer.from(options.signature.trim());
  if (given.length !== expected.length || !timingSafeEqual(given, expected))
    throw refuse("the signature does not match");
}
