// The token heuristic the budget runs on: cheap, never negative, roughly additive, aware
// of scripts and code, and calibrated by what the provider reports.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  estimateMessageTokens,
  estimateTokens,
  IMAGE_TOKENS,
  MESSAGE_OVERHEAD_TOKENS,
  TokenCalibrator,
} from "../../src/core/tokens.js";

// o200k counts of these samples (gpt-tokenizer 4.0.0), recorded when the weights were fitted.
const SAMPLES = [
  {
    name: "English prose",
    o200k: 52,
    text:
      "Instruction files are found in the workspace and in the user's home. Each has a character " +
      "budget, and an over-budget file is cut with a visible marker and a warning, not silently. " +
      "Stable content comes first so provider prompt caches keep hitting on the same prefix.",
  },
  {
    name: "TypeScript",
    o200k: 83,
    text: [
      "export function shareTotal(wanted: readonly number[], total: number): number[] {",
      "  const sum = wanted.reduce((s, n) => s + n, 0);",
      "  if (sum <= total) return [...wanted];",
      "  const ascending = [...wanted].sort((a, b) => a - b);",
      "  return wanted.map((n) => Math.min(n, ascending[0]!));",
      "}",
    ].join("\n"),
  },
  {
    name: "Chinese",
    o200k: 62,
    text: "决策：使用字符数除法估算 token 数，用运行时 usage 校准。理由：pi-ai 不提供本地 tokenizer；引入 tiktoken 等依赖增加复杂度和包大小；对于上下文预算管理，正负百分之二十的精度足够。",
  },
  {
    name: "JSON",
    o200k: 83,
    text: '{\n  "name": "reson",\n  "version": "0.1.0",\n  "type": "module",\n  "engines": { "node": ">=20.11" },\n  "dependencies": { "ignore": "7.0.17", "picomatch": "4.0.7", "typebox": "1.4.3" }\n}',
  },
];

describe("estimateTokens", () => {
  it("is 0 for the empty string and at least 1 for any other", () => {
    expect(estimateTokens("")).toBe(0);
    fc.assert(
      fc.property(fc.string({ unit: "binary", minLength: 1 }), (text) => {
        const tokens = estimateTokens(text);
        expect(Number.isInteger(tokens)).toBe(true);
        expect(tokens).toBeGreaterThanOrEqual(1);
      }),
    );
  });

  it("is nearly additive: estimate(a + b) is within a few tokens of estimate(a) + estimate(b)", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary" }), fc.string({ unit: "binary" }), (a, b) => {
        const joined = estimateTokens(a + b);
        expect(Math.abs(joined - estimateTokens(a) - estimateTokens(b))).toBeLessThanOrEqual(4);
      }),
      { numRuns: 500 },
    );
  });

  it("grows with the text: repeating a text scales its estimate", () => {
    fc.assert(
      fc.property(fc.string({ unit: "grapheme", minLength: 1, maxLength: 200 }), (text) => {
        const once = estimateTokens(text);
        const tenTimes = estimateTokens(text.repeat(10));
        expect(tenTimes).toBeGreaterThanOrEqual(once);
        expect(Math.abs(tenTimes - 10 * once)).toBeLessThanOrEqual(10 * 4);
      }),
      { numRuns: 200 },
    );
  });

  it("stays within 15% of o200k on prose, code, Chinese and JSON samples", () => {
    for (const sample of SAMPLES) {
      const estimate = estimateTokens(sample.text);
      expect(Math.abs(estimate - sample.o200k) / sample.o200k, sample.name).toBeLessThan(0.15);
    }
  });

  it("counts a CJK character as far more than a Latin letter, and a Latin word as about one token", () => {
    const han = estimateTokens("估".repeat(100));
    const kana = estimateTokens("テ".repeat(100));
    const hangul = estimateTokens("텍".repeat(100));
    const latin = estimateTokens("the cat sat on the mat and then it ran away ".repeat(3).slice(0, 100));
    for (const cjk of [han, kana, hangul]) {
      expect(cjk).toBeGreaterThan(2 * latin);
      expect(cjk).toBeGreaterThanOrEqual(50);
      expect(cjk).toBeLessThanOrEqual(110);
    }
    const words = "alpha beta gamma delta epsilon zeta theta iota kappa lambda ".repeat(10);
    expect(estimateTokens(words) / 100).toBeGreaterThan(0.8);
    expect(estimateTokens(words) / 100).toBeLessThan(1.5);
  });

  it("charges for digits in groups of three and for camelCase pieces", () => {
    expect(estimateTokens("1234567890")).toBeGreaterThan(estimateTokens("1234"));
    expect(estimateTokens("getElementByIdFromDocument")).toBeGreaterThan(estimateTokens("documentation"));
  });
});

describe("estimateMessageTokens", () => {
  it("adds a per-message overhead to the text of a string message", () => {
    const text = SAMPLES[0]!.text;
    expect(estimateMessageTokens({ role: "user", content: text })).toBe(
      MESSAGE_OVERHEAD_TOKENS + estimateTokens(text),
    );
    expect(estimateMessageTokens({ role: "user", content: "" })).toBe(MESSAGE_OVERHEAD_TOKENS);
  });

  it("sums text, thinking, tool calls and images of a part list", () => {
    const args = { path: "src/core/tokens.ts", offset: 120 };
    const message = {
      role: "assistant",
      content: [
        { type: "thinking", thinking: "Read the file first." },
        { type: "text", text: "Reading it." },
        { type: "toolCall", id: "call_1", name: "read_file", arguments: args },
      ],
    };
    const parts =
      estimateTokens("Read the file first.") +
      estimateTokens("Reading it.") +
      estimateTokens(JSON.stringify(args));
    const total = estimateMessageTokens(message);
    expect(total).toBeGreaterThan(MESSAGE_OVERHEAD_TOKENS + parts);
    expect(total).toBeLessThan(MESSAGE_OVERHEAD_TOKENS + parts + 20);

    const withImage = { role: "user", content: [{ type: "image", data: "aGVsbG8=", mimeType: "image/png" }] };
    expect(estimateMessageTokens(withImage)).toBe(MESSAGE_OVERHEAD_TOKENS + IMAGE_TOKENS);
    // The image's base64 is not text the model reads: it costs the same whatever its length.
    const bigImage = {
      role: "user",
      content: [{ type: "image", data: "A".repeat(100_000), mimeType: "image/png" }],
    };
    expect(estimateMessageTokens(bigImage)).toBe(MESSAGE_OVERHEAD_TOKENS + IMAGE_TOKENS);
  });
});

describe("TokenCalibrator", () => {
  it("starts at 1 and takes the first observation fully", () => {
    const calibrator = new TokenCalibrator();
    expect(calibrator.ratio).toBe(1);
    calibrator.observe(10_000, 12_000);
    expect(calibrator.ratio).toBeCloseTo(1.2, 10);
    expect(calibrator.estimate("x".repeat(4000))).toBe(Math.ceil(estimateTokens("x".repeat(4000)) * 1.2));
    expect(calibrator.scale(1000)).toBe(1200);
  });

  it("converges toward the ratio the provider keeps reporting", () => {
    const calibrator = new TokenCalibrator({ initialRatio: 1 });
    calibrator.observe(10_000, 8_000);
    for (let i = 0; i < 40; i++) calibrator.observe(20_000, 27_000);
    expect(calibrator.ratio).toBeCloseTo(1.35, 2);
    expect(calibrator.observations).toBe(41);
  });

  it("moves gradually once warmed up, so one odd response does not swing it", () => {
    const calibrator = new TokenCalibrator({ alpha: 0.2 });
    for (let i = 0; i < 10; i++) calibrator.observe(10_000, 11_000);
    calibrator.observe(10_000, 19_000);
    expect(calibrator.ratio).toBeGreaterThan(1.1);
    expect(calibrator.ratio).toBeLessThan(1.3);
  });

  it("clamps the ratio between its bounds", () => {
    const high = new TokenCalibrator();
    for (let i = 0; i < 5; i++) high.observe(1_000, 50_000);
    expect(high.ratio).toBe(2);
    const low = new TokenCalibrator({ minRatio: 0.5 });
    for (let i = 0; i < 5; i++) low.observe(50_000, 1_000);
    expect(low.ratio).toBe(0.5);
    expect(new TokenCalibrator({ initialRatio: 9 }).ratio).toBe(2);
  });

  it("ignores observations with tiny or invalid counts", () => {
    const calibrator = new TokenCalibrator({ minTokens: 256 });
    calibrator.observe(40, 90);
    calibrator.observe(10_000, 0);
    calibrator.observe(Number.NaN, 5_000);
    calibrator.observe(Number.POSITIVE_INFINITY, 5_000);
    expect(calibrator.ratio).toBe(1);
    expect(calibrator.observations).toBe(0);
  });
});
