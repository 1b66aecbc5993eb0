// ULIDs: 48-bit millisecond time + 80 bits of randomness, Crockford base32, 26 characters.
// Sortable by creation time, so "newest first" is a plain string sort, and a short unique
// prefix is enough to name a record.
import { createHash, randomBytes } from "node:crypto";

const ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
const TIME_CHARS = 10;
const RANDOM_CHARS = 16;

let lastTimeMs = -1;
let lastRandom: number[] = [];

function encodeTime(timeMs: number): string {
  let out = "";
  let rest = timeMs;
  for (let i = 0; i < TIME_CHARS; i++) {
    out = ALPHABET[rest % 32] + out;
    rest = Math.floor(rest / 32);
  }
  return out;
}

function freshRandom(): number[] {
  const bytes = randomBytes(RANDOM_CHARS);
  return Array.from(bytes, (b) => b % 32);
}

/** Increments the random part so ids made in the same millisecond still sort in order. */
function incremented(digits: number[]): number[] {
  const next = digits.slice();
  for (let i = next.length - 1; i >= 0; i--) {
    const d = next[i] ?? 0;
    if (d < 31) {
      next[i] = d + 1;
      return next;
    }
    next[i] = 0;
  }
  return freshRandom();
}

export function ulid(timeMs: number = Date.now()): string {
  lastRandom = timeMs === lastTimeMs ? incremented(lastRandom) : freshRandom();
  lastTimeMs = timeMs;
  return encodeTime(timeMs) + lastRandom.map((d) => ALPHABET[d]).join("");
}

/**
 * A ULID whose random part is taken from the SHA-256 of `seed`: the same time and seed always
 * give the same id, so a record derived from the same facts is known when it is written again.
 */
export function seededUlid(timeMs: number, seed: string): string {
  const digest = createHash("sha256").update(seed).digest();
  return encodeTime(timeMs) + Array.from(digest.subarray(0, RANDOM_CHARS), (b) => ALPHABET[b % 32]).join("");
}

export function isUlid(value: string): boolean {
  return /^[0-9A-HJKMNP-TV-Z]{26}$/.test(value);
}

/** Time a ULID was made, in ms since the epoch. */
export function ulidTimeMs(id: string): number {
  let time = 0;
  for (const ch of id.slice(0, TIME_CHARS)) time = time * 32 + ALPHABET.indexOf(ch);
  return time;
}
