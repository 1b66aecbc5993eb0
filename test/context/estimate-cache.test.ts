// The estimates of long texts kept across runs: the same numbers as estimating, read back by
// the next process, for the estimator that wrote them only, and never a failure of the run.
import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { EstimateCache, estimateCacheFile, MIN_CACHED_CHARS } from "../../src/context/estimate-cache.js";
import { RequestEstimator } from "../../src/context/index.js";
import { estimateTokens } from "../../src/core/tokens.js";
import { type TempDir, tempDir } from "../support/cli.js";

const dirs: TempDir[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) dir.remove();
});

function fileIn(): string {
  const dir = tempDir();
  dirs.push(dir);
  return estimateCacheFile(dir.path);
}

const long = (seed: string) =>
  Array.from({ length: 400 }, (_, i) => `${seed} {"name":"tool_${i}","type":"string"} `).join("");
const sha256 = (text: string) => createHash("sha256").update(text, "utf8").digest("hex");
const saved = (file: string) =>
  JSON.parse(readFileSync(file, "utf8")) as { version: string; entries: Record<string, number> };

describe("EstimateCache", () => {
  it("estimates a short text each time and keeps nothing for it", () => {
    const file = fileIn();
    const text = "read the file and fix the bug";
    expect(new EstimateCache(file).estimate(text)).toBe(estimateTokens(text));
    expect(() => statSync(file)).toThrow();
  });

  it("keeps a long text's estimate, for its owner only, and the next process reads it back", () => {
    const file = fileIn();
    const text = long("a");
    expect(text.length).toBeGreaterThanOrEqual(MIN_CACHED_CHARS);
    expect(new EstimateCache(file).estimate(text)).toBe(estimateTokens(text));
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const { version, entries } = saved(file);
    expect(entries).toEqual({ [sha256(text)]: estimateTokens(text) });

    // What is read back is what the file says: a second cache does not estimate again.
    writeFileSync(file, JSON.stringify({ version, entries: { [sha256(text)]: 12345 } }));
    expect(new EstimateCache(file).estimate(text)).toBe(12345);
  });

  it("ignores a file of another estimator, a damaged file and bad entries, and writes a good one", () => {
    const file = fileIn();
    const text = long("b");
    const right = estimateTokens(text);
    mkdirSync(join(file, ".."), { recursive: true });
    for (const content of [
      JSON.stringify({ version: "an older estimator", entries: { [sha256(text)]: 1 } }),
      "{ not json",
      JSON.stringify({ version: 7, entries: [] }),
    ]) {
      writeFileSync(file, content);
      expect(new EstimateCache(file).estimate(text)).toBe(right);
      expect(saved(file).entries).toEqual({ [sha256(text)]: right });
    }
    const { version } = saved(file);
    writeFileSync(file, JSON.stringify({ version, entries: { [sha256(text)]: -3, nothex: 5 } }));
    expect(new EstimateCache(file).estimate(text)).toBe(right);
  });

  it("keeps the 32 most recent estimates", () => {
    const file = fileIn();
    const cache = new EstimateCache(file);
    const texts = Array.from({ length: 40 }, (_, i) => long(`t${i}`));
    for (const text of texts) cache.estimate(text);
    const keys = Object.keys(saved(file).entries);
    expect(keys).toHaveLength(32);
    expect(keys).toEqual(texts.slice(8).map(sha256));
  });

  it("never fails an estimate when the file cannot be written", () => {
    const dir = tempDir();
    dirs.push(dir);
    writeFileSync(join(dir.path, "cache"), "a file where the folder should be");
    const text = long("c");
    expect(new EstimateCache(estimateCacheFile(dir.path)).estimate(text)).toBe(estimateTokens(text));
  });
});

describe("RequestEstimator", () => {
  it("estimates the tools' schemas and the system prompt with the estimate it is given", () => {
    const seen: string[] = [];
    const estimator = new RequestEstimator({
      estimate: (text) => {
        seen.push(text);
        return 1000;
      },
    });
    const tools = [{ name: "read_file", description: "Reads a file.", parameters: { type: "object" } }];
    const raw = estimator.raw({
      systemPrompt: "You are reson.",
      messages: [{ role: "user", content: "hello", timestamp: 0 }],
      tools,
    });
    expect(seen).toEqual(["You are reson.", JSON.stringify(tools)]);
    expect(raw).toBeGreaterThan(2000);
  });
});
