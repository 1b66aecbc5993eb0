import { describe, expect, it } from "vitest";
import { jaccard, tokenize } from "../../src/memory/index.js";

describe("tokenize", () => {
  it("lowercases words and splits on punctuation, spaces and underscores", () => {
    expect([...tokenize("Hello, World! foo_bar 3.14 naïve")]).toEqual([
      "hello",
      "world",
      "foo",
      "bar",
      "3",
      "14",
      "naïve",
    ]);
  });

  it("cuts Chinese, Japanese and Korean runs into character bigrams; a lone character stays whole", () => {
    expect([...tokenize("数据库连接")]).toEqual(["数据", "据库", "库连", "连接"]);
    expect([...tokenize("锁")]).toEqual(["锁"]);
    expect([...tokenize("Redis缓存穿透")]).toEqual(["redis", "缓存", "存穿", "穿透"]);
    expect([...tokenize("データ")]).toEqual(["デー", "ータ"]);
    expect([...tokenize("한국어")]).toEqual(["한국", "국어"]);
  });

  it("gives a set: repeated terms count once", () => {
    expect(tokenize("deploy deploy DEPLOY").size).toBe(1);
  });
});

describe("jaccard", () => {
  it("is 1 for the same terms, 0 for none shared or both empty, the overlap ratio otherwise", () => {
    expect(jaccard(tokenize("a b c"), tokenize("c b a"))).toBe(1);
    expect(jaccard(tokenize("a b"), tokenize("c d"))).toBe(0);
    expect(jaccard(new Set(), new Set())).toBe(0);
    expect(jaccard(tokenize("a b c"), tokenize("b c d"))).toBe(2 / 4);
  });

  it("sees Chinese sentences about the same thing as closer than unrelated ones", () => {
    const timeout = tokenize("数据库连接超时");
    expect(jaccard(timeout, tokenize("数据库连接失败"))).toBeGreaterThan(
      jaccard(timeout, tokenize("部署脚本执行成功")),
    );
  });
});
