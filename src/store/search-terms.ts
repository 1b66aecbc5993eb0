// The terms the lexical index of experiences holds and queries with: English words stemmed,
// stop words out, Chinese cut into words by jieba (with the dictionary words inside a long
// word, so a phrase cut apart differently in a key and in a task still meets), and identifiers
// (SQLITE_BUSY, package.json, ModuleNotFoundError) kept whole beside their parts. Indexing and
// querying cut text the same way, so a term either side can name is a term both share. A
// query's terms carry weights by how rare they are in their language (word-rarity.ts, jieba's
// dictionary): "build" or "put" says little, "busy_timeout" or "正则表达式" much; an identifier
// more still, and a word every coding task uses ("fix", "file", "报错") little.
import { cjkWordForms, cjkZipf } from "./cjk-words.js";
import { inflectedStem, stemEnglish } from "./english-stem.js";
import { textSegments } from "./text-terms.js";
import { englishFrequencies } from "./word-rarity.js";

// Words that say nothing about what a text is about, in English and Chinese.
const STOP_WORDS = new Set(
  (
    "a about above after again against all also although am an and any are as at be because been before being below " +
    "between both but by can could did do does doing done down during each either else ever every few for " +
    "from further get gets got had has have having he her here hers him his how i if in into is it its itself " +
    "just let lets may me might more most much must my myself no nor not now of off on once one only or other " +
    "our ours out over own please same she should so some such than that the their theirs them then there " +
    "these they this those though through to too under until up upon us very via was we were what when whenever " +
    "where whether which while who whom whose why will with within without would yes yet you your yours " +
    "的 了 是 在 我 我们 你 你们 他 她 它 他们 这 那 这个 那个 这些 那些 和 与 及 或 或者 就 都 也 还 又 " +
    "很 会 能 要 想 请 帮 帮我 给 把 被 让 对 从 到 为 为了 以 而 但 但是 如果 因为 所以 怎么 怎样 如何 " +
    "什么 为什么 哪 哪个 一下 一个 一些 有 没有 没 不 吗 呢 吧 啊 着 过 得 地 之 其 中 上 下 里 时 时候 后 前 " +
    "再 并 并且 然后 已经 可以 应该 需要 总是 每次 所有 这样 那样 这里 那里 自己 " +
    // Number words, and English adverbs of time, order and manner: they say when or how, not what.
    "two three four five six seven eight nine ten twice several many lot lots bit since ago already " +
    "later soon recently suddenly immediately really actually even anymore somehow maybe perhaps " +
    "probably almost quite rather " +
    // Chinese adverbs of time, order and manner, conjunctions, particles and pronouns: a task's
    // 以后 or 直接 meeting a rule's is chance, not a shared topic.
    "以后 之后 以前 之前 后来 接着 随后 马上 立刻 立即 刚 刚刚 刚才 直接 突然 终于 其实 确实 好像 " +
    "似乎 也许 大概 可能 一定 必须 还是 而且 不过 只是 只 就是 老是 经常 常常 有时 有时候 偶尔 " +
    "现在 目前 一下子 一会 一会儿 一点 一点儿 有点 有些 比较 非常 特别 太 挺 真 更 最 几乎 差不多 " +
    "之类 等等 比如 例如 竟然 居然 才 却 便 则 将 使 等 跟 咱们 大家 别人 人家 某 某个 某些 各 " +
    "各个 每 每个 其他 其它 另 另外 别的 任何 全部 一切 整个 这么 那么 多少 几 哪里 哪儿 谁 么 嘛 " +
    "呀 哦 啦 的话 起来 出来 下来 过来 下去"
  ).split(" "),
);

/**
 * A Chinese numeral or demonstrative with its measure word (一封, 三遍, 这张, 几秒, 好几份,
 * 第二次), or a bare numeral: as common in tasks as "the" and "two", and cut by jieba as words of
 * their own, so two texts met on them by chance (一封 in a letter to write and in a rule about
 * emails sent twice).
 */
const CJK_COUNT_WORD = new RegExp(
  // From strings, which the CLI bundle writes as \u escapes (it must stay ASCII).
  `^第?[${"零一二两三四五六七八九十百千万几半多好每这那哪某各整"}]+(?:${"个 位 封 张 条 份 遍 次 回 件 台 篇 些 种 项 行 页 段 句 本 块 只 家 天 年 月 周 下 点 秒 分 分钟 秒钟 小时 星期 倍 层 步 套 组 批 笔"
    .split(" ")
    .join("|")})?$`,
  "u",
);

/**
 * Words (as stems) nearly every task about code uses, rare as they may be in everyday language:
 * a match on them alone is chance, so they count at most half.
 */
const GENERIC_STEMS = new Set(
  (
    "fix use run make need want work try check help new add write code task thing way time like sure " +
    "instead first alwai never again still find show tell give keep start stop set chang updat creat " +
    "remov read look call see take put done issu problem wrong right correct good bad better best " +
    "project file error fail broken step app bug function " +
    "报错 出错 错误 问题 失败 代码 文件 项目 修复 提示 程序 运行 执行 功能 解决 " +
    // The Chinese for the English above, so a task weighs alike in either language.
    "函数 应用 添加 增加 新增 加 创建 新建 写 修改 更改 改 更新 删除 检查 使用 用 需要 尝试 帮助 " +
    "任务 步骤 显示 查看 看 查找 找 开始 启动 停止 设置 读取 调用 正确 好 新 一直 再次 方法 办法 处理 东西"
  ).split(" "),
);

/**
 * Names of programming languages that are also common English words: in a task about code
 * they name the language ("a Go build"), so they weigh as content words, not by how common
 * the word is.
 */
const LANGUAGE_NAMES = new Set(["go", "rust", "swift", "dart", "ruby", "julia", "elixir", "crystal"]);

/** The weights of words by rarity: none lighter or heavier than these. */
const MIN_WORD_WEIGHT = 0.4;
const MAX_WORD_WEIGHT = 1.8;
/**
 * A word of this Zipf value (log10 of its occurrences per billion words: "the" 7.5, "build"
 * 4.7, "database" 3.8, "timeout" 2.7) weighs 1; each step of 1 rarer or more common moves the
 * weight by WEIGHT_PER_ZIPF.
 */
const ORDINARY_ZIPF = 4.5;
const WEIGHT_PER_ZIPF = 0.4;
const GENERIC_WEIGHT = 0.5;
/** The verb a noun in -ion or -ment comes from, as a form of the noun: no heavier than a generic word. */
const DERIVED_FORM_WEIGHT = GENERIC_WEIGHT;
const IDENTIFIER_WEIGHT = 2;
/** Words of this many letters or fewer that no word list holds weigh as ordinary words. */
const SHORT_WORD = 3;

/** The weight of a word by its Zipf value; undefined: rarer than the table holds; null: no table. */
function rarityWeight(zipf: number | undefined | null): number {
  if (zipf === null) return 1;
  if (zipf === undefined) return MAX_WORD_WEIGHT;
  const weight = 1 + (ORDINARY_ZIPF - zipf) * WEIGHT_PER_ZIPF;
  return Math.min(MAX_WORD_WEIGHT, Math.max(MIN_WORD_WEIGHT, weight));
}

function englishWeight(stem: string): number {
  if (LANGUAGE_NAMES.has(stem)) return 1;
  // Numbers and words with digits (5432, utf8) are not in any word list.
  if (/[0-9]/.test(stem)) return 1;
  const table = englishFrequencies();
  const zipf = table.kind === "none" ? null : table.zipf(stem);
  // A short word no word list holds is an abbreviation (CI, API, URL): common in code, not rare.
  if (zipf === undefined && stem.length <= SHORT_WORD) return 1;
  const weight = rarityWeight(zipf);
  return GENERIC_STEMS.has(stem) ? Math.min(weight, GENERIC_WEIGHT) : weight;
}

function chineseWeight(word: string): number {
  const weight = rarityWeight(cjkZipf(word));
  return GENERIC_STEMS.has(word) ? Math.min(weight, GENERIC_WEIGHT) : weight;
}

/** An identifier: words joined by _ . - / or CamelCase (the joined form is a term of its own). */
const IDENTIFIER =
  /[A-Za-z][A-Za-z0-9]*(?:[._\-/][A-Za-z0-9]+)+|[A-Za-z]*[a-z][A-Z][A-Za-z0-9]*|[A-Z]{2,}[0-9]+/g;
const ASCII_TERM = /^[a-z0-9]+$/;
/**
 * Two capitalised parts and nothing else: the way products are named (JavaScript, GitHub,
 * MySQL, WeChat), common in tasks and no more telling than a rare word; an error class
 * (TypeError, ImportError) stays an identifier.
 */
const PRODUCT_NAME = /^[A-Z][a-z]+[A-Z](?:[a-z]+|[A-Z]+)$(?<!(?:Error|Exception|Warning))/;

export interface WeightedTerm {
  term: string;
  /** 2 for an identifier; a word 0.4 (common) to 1.8 (rare); a generic word at most 0.5. */
  weight: number;
  /** An identifier or error code (busy_timeout, package.json, SQLITE_BUSY), whatever it weighs. */
  identifier?: true;
  /**
   * Terms of one unit are forms of one word (正则表达式 and 正则): a text matching several of
   * them matches the word once, at the weight of its heaviest. Absent: the term is its own unit.
   */
  unit?: number;
}

function keepWord(word: string): boolean {
  if (STOP_WORDS.has(word)) return false;
  // Single Latin letters and bare small numbers match everything.
  if (/^[a-z]$/.test(word) || /^[0-9]{1,2}$/.test(word)) return false;
  return true;
}

/** The weighted terms of a text, each once (the highest weight wins). */
export function weightedTerms(text: string): WeightedTerm[] {
  const terms = new Map<string, WeightedTerm>();
  let units = 0;
  const put = (term: string, weight: number, unit?: number) => {
    if (term.length === 0) return;
    const known = terms.get(term);
    if (known && known.weight >= weight) return;
    const kept = unit ?? known?.unit;
    terms.set(term, kept === undefined ? { term, weight } : { term, weight, unit: kept });
  };
  for (const match of text.matchAll(IDENTIFIER)) {
    // A name in two capitalised parts (JavaScript, GitHub, MySQL) is a word, weighed by rarity.
    if (PRODUCT_NAME.test(match[0])) continue;
    const joined = match[0].toLowerCase().replace(/[^a-z0-9]/g, "");
    if (joined.length >= 4) terms.set(joined, { term: joined, weight: IDENTIFIER_WEIGHT, identifier: true });
  }
  for (const segment of textSegments(text)) {
    if (!segment.cjk) {
      if (!keepWord(segment.text)) continue;
      const stem = stemEnglish(segment.text);
      const weight = englishWeight(stem);
      const word = inflectedStem(segment.text);
      if (word === stem) {
        put(stem, weight);
        continue;
      }
      // A noun made of a verb ("expression", "deployment") is a word of its own, and meets the
      // verb ("express", "deploy") only lightly, as a generic word: "regular expression" and
      // express.raw are different things, and one such meeting is no evidence of a topic.
      const unit = units++;
      put(word, weight, unit);
      put(stem, Math.min(weight, DERIVED_FORM_WEIGHT), unit);
      continue;
    }
    for (const forms of cjkWordForms(segment.text)) {
      const word = forms[0]!.trim().toLowerCase();
      if (word === "" || STOP_WORDS.has(word) || CJK_COUNT_WORD.test(word)) continue;
      // jieba passes Latin text inside a run through; the Latin leg above has it already.
      if (ASCII_TERM.test(word)) continue;
      const unit = forms.length > 1 ? units++ : undefined;
      for (const form of forms) if (!CJK_COUNT_WORD.test(form)) put(form, chineseWeight(form), unit);
    }
  }
  return [...terms.values()];
}

/**
 * The words of the query `has` holds, as units (a word's forms once), each at the weight of its
 * heaviest matched form: what a match rests on, word by word.
 */
export function matchedWords(query: readonly WeightedTerm[], has: (term: string) => boolean): MatchedWord[] {
  const words: MatchedWord[] = [];
  const units = new Map<number, MatchedWord>();
  for (const { term, weight, unit, identifier } of query) {
    if (!has(term)) continue;
    const word = { weight, identifier: identifier === true };
    if (unit === undefined) words.push(word);
    else if ((units.get(unit)?.weight ?? -1) < weight) units.set(unit, word);
  }
  return [...words, ...units.values()];
}

export interface MatchedWord {
  weight: number;
  identifier: boolean;
}

/** A word this light or lighter is one every coding task uses, or a common one. */
export const GENERIC_WORD_WEIGHT = GENERIC_WEIGHT;

/** The weight of the query terms `has` holds, each unit once at its heaviest matched form. */
function coveredWeight(query: readonly WeightedTerm[], has: (term: string) => boolean): number {
  return matchedWords(query, has).reduce((sum, word) => sum + word.weight, 0);
}

/** The summed weight of the query terms among `terms` (a word's forms once). */
export function weightOf(query: readonly WeightedTerm[], terms: ReadonlySet<string>): number {
  return coveredWeight(query, (term) => terms.has(term));
}

/** The distinct terms of a text, as the index holds them. */
export function searchTerms(text: string): string[] {
  return weightedTerms(text).map((t) => t.term);
}

/** A query lighter than this (one generic word, say) cannot match fully on its own. */
const MIN_QUERY_WEIGHT = 1.5;

/**
 * The part of a query's weight a document's terms cover, 0..1, saturating: covering
 * `saturationWeight` (two words, or one identifier) is a full match, however long the query.
 * It reads nothing about the other documents, so one threshold means the same in a project
 * of 5 rules and of 5,000.
 */
export function coverageScore(
  query: readonly WeightedTerm[],
  documentTerms: ReadonlySet<string>,
  saturationWeight = 2,
): number {
  const total = coveredWeight(query, () => true);
  if (total === 0) return 0;
  const covered = weightOf(query, documentTerms);
  return Math.min(1, covered / Math.min(Math.max(total, MIN_QUERY_WEIGHT), saturationWeight));
}
