import { describe, expect, it } from "vitest";
import { backoffDelayMs, DEFAULT_RETRY_POLICY, parseRetryAfter } from "../../src/providers/index.js";

describe("backoffDelayMs", () => {
  const policy = DEFAULT_RETRY_POLICY;
  const middle = () => 0.5;

  it("doubles from the base delay and stops at the cap", () => {
    expect([1, 2, 3, 4].map((n) => backoffDelayMs(policy, n, undefined, middle))).toEqual([
      500, 1000, 2000, 4000,
    ]);
    expect(backoffDelayMs(policy, 20, undefined, middle)).toBe(30_000);
  });

  it("moves by at most the jitter fraction either way", () => {
    expect(backoffDelayMs(policy, 2, undefined, () => 0)).toBe(750);
    expect(backoffDelayMs(policy, 2, undefined, () => 1)).toBe(1250);
  });

  it("waits for Retry-After when the server asks for longer, never for less than the backoff", () => {
    expect(backoffDelayMs(policy, 1, 5_000, middle)).toBe(5_000);
    expect(backoffDelayMs(policy, 3, 100, middle)).toBe(2_000);
  });
});

describe("parseRetryAfter", () => {
  const now = Date.parse("2026-01-01T00:00:00Z");
  it.each([
    [{ "retry-after": "2" }, 2_000],
    [{ "retry-after": "0.5" }, 500],
    [{ "retry-after-ms": "250", "retry-after": "9" }, 250],
    [{ "retry-after": "Thu, 01 Jan 2026 00:00:30 GMT" }, 30_000],
    [{ "retry-after": "soon" }, undefined],
    [{}, undefined],
  ])("%o → %s ms", (headers, expected) => {
    expect(parseRetryAfter(new Headers(headers), now)).toBe(expected);
  });
});
