// The terms lessons are indexed and searched by: English stemmed (inflections only), stop words
// out, Chinese cut into words by jieba with the words inside them, identifiers kept whole, each
// weighed by its rarity; and the normalised score built on them.
import { describe, expect, it } from "vitest";
import {
  calibratedScores,
  cjkSegmenter,
  coverageScore,
  estimateUplift,
  lessonTextScore,
  MIN_TEXT_MATCH,
  ONE_WORD_SCORE,
  searchTerms,
  upliftSaysRetire,
  weightedTerms,
} from "../../src/memory/index.js";
import { stemEnglish, weightOf } from "../../src/store/index.js";

describe("search terms", () => {
  it("stems English so a word's forms meet", () => {
    const stems = (words: string) => words.split(" ").map(stemEnglish);
    expect(new Set(stems("lock locked locking locks"))).toEqual(new Set(["lock"]));
    expect(new Set(stems("connect connected connection connections connecting"))).toEqual(
      new Set(["connect"]),
    );
    expect(new Set(stems("database databases"))).toEqual(new Set([stemEnglish("database")]));
    // Inflections only: words that merely look alike stay apart.
    expect(stemEnglish("authorization")).not.toBe(stemEnglish("author"));
    expect(stemEnglish("generalization")).not.toBe(stemEnglish("general"));
    expect(new Set(stems("change changed changes changing"))).toEqual(new Set([stemEnglish("change")]));
    expect(new Set(stems("deploy deployed deployment deployments"))).toEqual(
      new Set([stemEnglish("deploy")]),
    );
    // A short word ending in a double letter keeps it in every form.
    expect(new Set(stems("add added adding adds"))).toEqual(new Set(["add"]));
    expect(new Set(stems("err erred"))).toEqual(new Set(["err"]));
    expect(new Set(stems("hop hopped hopping"))).toEqual(new Set(["hop"]));
    // Short words and tokens with digits stay as they are.
    expect(stems("is 5432 utf8")).toEqual(["is", "5432", "utf8"]);
  });

  it("indexes a noun in -ion or -ment as itself, and the verb it comes from only as a light form of it", () => {
    const terms = new Map(weightedTerms("regular expressions").map((t) => [t.term, t]));
    const noun = terms.get("expression");
    const verb = terms.get(stemEnglish("express"));
    expect(noun?.weight).toBeGreaterThan(0.5);
    expect(verb?.weight).toBeLessThanOrEqual(0.5);
    expect(verb?.unit).toBe(noun?.unit);
    // A lesson that names express.raw meets a task about regular expressions on a light form
    // only, so "expression" and "match" together are no longer two words of content.
    const lesson = new Set(searchTerms("mount express.raw before express.json; signature does not match"));
    expect(
      lessonTextScore(weightedTerms("Write a regular expression that matches UK postcodes"), lesson),
    ).toBeLessThan(MIN_TEXT_MATCH);
    // The noun meets itself in full, and a verb in the task still meets a noun in the lesson.
    const deployment = new Set(searchTerms("the deployment of the worker fails"));
    expect(weightOf(weightedTerms("deployments of the worker"), deployment)).toBeGreaterThan(1.5);
    expect(weightOf(weightedTerms("deploy"), deployment)).toBeGreaterThan(0.5);
  });

  it("leaves stop words out, in English and Chinese, and nothing is left of a text made of them", () => {
    expect(searchTerms("Write a poem about the sea")).toEqual(["write", "poem", "sea"]);
    expect(searchTerms("what is the of with to and")).toEqual([]);
    expect(searchTerms("我们的这个是什么")).toEqual([]);
  });

  it("leaves out Chinese adverbs of time and manner and counted words, so a letter to write meets no rule about emails sent three times", () => {
    const terms = searchTerms("帮我写一封请假邮件，以后直接发给经理");
    expect(terms).toEqual(expect.arrayContaining(["请假", "邮件", "经理"]));
    for (const word of ["一封", "以后", "直接"]) expect(terms).not.toContain(word);
    expect(searchTerms("对账邮件发了三遍，几秒后才到")).not.toEqual(expect.arrayContaining(["三遍"]));
    expect(searchTerms("It suddenly fails twice since yesterday")).toEqual(
      expect.arrayContaining([stemEnglish("fails"), stemEnglish("yesterday")]),
    );
    expect(searchTerms("It suddenly fails twice")).not.toContain("twice");
  });

  it("cuts Chinese into words with jieba, loaded only for text that has Chinese", () => {
    searchTerms("an English text only");
    const before = cjkSegmenter().kind;
    const terms = searchTerms("并发写入的时候数据库总是被锁住");
    expect(terms).toEqual(expect.arrayContaining(["并发", "写入", "数据库"]));
    expect(terms).not.toContain("的");
    const after = cjkSegmenter();
    expect(after.kind).toBe("jieba");
    expect(after.loadMs).toBeGreaterThan(0);
    // Within this file, English came first: the dictionary was not loaded for it.
    expect(before === "not loaded" || before === "jieba").toBe(true);
  });

  it("weighs a word by how rare it is in its language, identifiers more, generic coding words less", () => {
    const weights = Object.fromEntries(
      weightedTerms("fix SQLITE_BUSY in package.json and ModuleNotFoundError, then put the build").map(
        (t) => [t.term, t.weight],
      ),
    );
    expect(weights).toMatchObject({ sqlitebusy: 2, packagejson: 2, modulenotfounderror: 2 });
    // "put" and "build" are in every other sentence; "sqlite" and "json" in few.
    expect(weights.sqlite).toBeGreaterThan(1.5);
    expect(weights.put).toBeLessThan(0.5);
    expect(weights.build).toBeLessThan(weights.sqlite!);
    expect(weights.fix).toBeLessThanOrEqual(0.5);
    // A product name in two capitalised parts is a word, not an identifier; an error class is one.
    const named = weightedTerms("JavaScript on GitHub throws a TypeError");
    expect(named.find((t) => t.term === "javascript")).not.toHaveProperty("identifier");
    expect(named.find((t) => t.term === "javascript")?.weight).toBeLessThan(2);
    expect(named.find((t) => t.term === "github")?.weight).toBeLessThan(2);
    expect(named.find((t) => t.term === "typeerror")).toMatchObject({ weight: 2, identifier: true });
    // A language named like a common word is a content word; so is a rare Chinese word.
    const go = weightedTerms("a Go build").find((t) => t.term === "go");
    expect(go?.weight).toBe(1);
    const zh = Object.fromEntries(weightedTerms("正则表达式卡死了，又报错").map((t) => [t.term, t.weight]));
    expect(zh.正则表达式).toBeGreaterThan(1.2);
    expect(zh.报错).toBeLessThanOrEqual(0.5);
    // Generic in either language: the Chinese for "function" and "update" weighs as the English.
    const both = Object.fromEntries(
      weightedTerms("更新函数 update the function").map((t) => [t.term, t.weight]),
    );
    expect(both.函数).toBeLessThanOrEqual(0.5);
    expect(both.更新).toBeLessThanOrEqual(0.5);
    expect(both[stemEnglish("function")]).toBeLessThanOrEqual(0.5);
  });

  it("cuts a Chinese phrase so a key and a task that cut it apart differently still meet", () => {
    // In a sentence jieba cuts 正则表达式 whole; as pieces (正则, 表达式) it is found too, once.
    const task = weightedTerms("用正则表达式校验邮箱时卡死了");
    const key = new Set(searchTerms("正则 卡死"));
    expect(coverageScore(task, key)).toBe(1);
    const phrase = task.filter((t) => ["正则表达式", "正则", "表达式"].includes(t.term));
    expect(new Set(phrase.map((t) => t.unit)).size).toBe(1);
    expect(weightOf(task, new Set(["正则", "正则表达式", "表达式"]))).toBe(
      Math.max(...phrase.map((t) => t.weight)),
    );
  });

  it("scores the part of the task's weight a lesson covers, saturating at two words", () => {
    const doc = new Set(searchTerms("SQLite database is locked under concurrent writes; set busy_timeout"));
    const score = (task: string) => coverageScore(weightedTerms(task), doc);
    expect(score("the database is locked again during the nightly import job")).toBe(1);
    expect(score("busy_timeout")).toBe(1);
    expect(score("Compute the median of this list of numbers")).toBe(0);
    // One shared ordinary word of a long task is less than a match; a lone generic word less still.
    expect(score("the nightly import job reads a database dump from S3 bucket")).toBeLessThan(0.75);
    expect(coverageScore(weightedTerms("fix it"), new Set(["fix"]))).toBeLessThan(0.5);
  });

  it("needs two words of content, or one identifier, for a lesson to match a task fully", () => {
    const lesson = new Set(
      searchTerms(
        "a Go build stops because go.sum lacks an entry; go mod tidy; Go refuses to compile after a new dependency",
      ),
    );
    const score = (task: string) => lessonTextScore(weightedTerms(task), lesson);
    // One word in common, however rare, is not enough: unrelated tasks met lessons that way.
    expect(score("Refactor the user service to use dependency injection")).toBeLessThanOrEqual(
      ONE_WORD_SCORE,
    );
    expect(ONE_WORD_SCORE).toBeLessThan(MIN_TEXT_MATCH);
    // Two content words, or one identifier, are.
    expect(score("The Go compiler stops after I pulled in a dependency")).toBeGreaterThanOrEqual(
      MIN_TEXT_MATCH,
    );
    expect(score("go.sum is wrong again")).toBe(1);
    // A generic word is no second word.
    expect(score("Add a new dependency to the user service")).toBeLessThan(MIN_TEXT_MATCH);
    // A task of one content word is matched by it.
    expect(score("dependency?")).toBe(1);
    // Where coverage alone is lower, the score is the coverage.
    const long = weightedTerms("the nightly import job reads a database dump from an S3 bucket");
    const doc = new Set(searchTerms("SQLite database is locked"));
    expect(lessonTextScore(long, doc)).toBe(coverageScore(long, doc));
  });
});

describe("vector hits that stand out", () => {
  it("scores a hit by how far it rises above unrelated texts for the same task, not by its cosine", () => {
    // A model whose unrelated texts score about 0.7: a hit at 0.85 stands far out.
    const background = Array.from({ length: 32 }, (_, i) => 0.7 + (i % 3) * 0.01);
    expect(calibratedScores([{ id: "hit", score: 0.85 }], background).get("hit")).toBeGreaterThan(6);
    // The same cosine under a model whose unrelated texts score alike stands out of nothing.
    const alike = Array.from({ length: 32 }, (_, i) => 0.84 + (i % 2) * 0.01);
    expect(calibratedScores([{ id: "hit", score: 0.85 }], alike).get("hit")).toBeLessThan(1);
    // One rule is enough to judge; no background, no z-scores.
    expect(calibratedScores([{ id: "hit", score: 0.9 }], []).size).toBe(0);
  });
});

describe("uplift", () => {
  it("compares success with and without the rule and retires only a rule credibly not helping", () => {
    const helps = estimateUplift({
      successCount: 18,
      failureCount: 2,
      holdoutSuccessCount: 3,
      holdoutFailureCount: 5,
    });
    expect(helps.uplift).toBeGreaterThan(0.3);
    expect(helps.low).toBeGreaterThan(0);
    expect(upliftSaysRetire(helps)).toBe(false);
    const harms = estimateUplift({
      successCount: 4,
      failureCount: 16,
      holdoutSuccessCount: 7,
      holdoutFailureCount: 1,
    });
    expect(harms.high).toBeLessThanOrEqual(0);
    expect(upliftSaysRetire(harms)).toBe(true);
    // The same rates on too few runs say nothing yet.
    expect(
      upliftSaysRetire(
        estimateUplift({ successCount: 1, failureCount: 4, holdoutSuccessCount: 2, holdoutFailureCount: 0 }),
      ),
    ).toBe(false);
  });
});
