// The terms the lexical index of experiences holds and queries with: English words stemmed,
// stop words out, Chinese cut into words by jieba, and identifiers (SQLITE_BUSY, package.json,
// ModuleNotFoundError) kept whole beside their parts. Indexing and querying cut text the same
// way, so a term either side can name is a term both share. A query's terms carry weights:
// an identifier says more than a word, a word every task uses ("fix", "file") says less.
import { cjkWords } from "./cjk-words.js";
import { stemEnglish } from "./english-stem.js";
import { textSegments } from "./text-terms.js";

// Words that say nothing about what a text is about, in English and Chinese.
const STOP_WORDS = new Set(
  (
    "a about above after again against all also am an and any are as at be because been before being below " +
    "between both but by can could did do does doing done down during each either else ever every few for " +
    "from further get gets got had has have having he her here hers him his how i if in into is it its itself " +
    "just let lets may me might more most much must my myself no nor not now of off on once one only or other " +
    "our ours out over own please same she should so some such than that the their theirs them then there " +
    "these they this those through to too under until up upon us very via was we were what when whenever " +
    "where whether which while who whom whose why will with within without would yes yet you your yours " +
    "的 了 是 在 我 我们 你 你们 他 她 它 他们 这 那 这个 那个 这些 那些 和 与 及 或 或者 就 都 也 还 又 " +
    "很 会 能 要 想 请 帮 帮我 给 把 被 让 对 从 到 为 为了 以 而 但 但是 如果 因为 所以 怎么 怎样 如何 " +
    "什么 为什么 哪 哪个 一下 一个 一些 有 没有 没 不 吗 呢 吧 啊 着 过 得 地 之 其 中 上 下 里 时 时候 后 前 " +
    "再 并 并且 然后 已经 可以 应该 需要 总是 每次 所有 这样 那样 这里 那里 自己"
  ).split(" "),
);

/**
 * Words (as stems) nearly every task about code uses: a match on them alone is chance, so they
 * count half.
 */
const GENERIC_STEMS = new Set(
  (
    "fix use run make need want work try check help new add write code task thing way time like sure " +
    "instead first alwai never again still find show tell give keep start stop set chang updat creat " +
    "remov read look call see go take put done issu problem wrong right correct good bad better best " +
    "project file error fail broken step"
  ).split(" "),
);

/** An identifier: words joined by _ . - / or CamelCase (the joined form is a term of its own). */
const IDENTIFIER =
  /[A-Za-z][A-Za-z0-9]*(?:[._\-/][A-Za-z0-9]+)+|[A-Za-z]*[a-z][A-Z][A-Za-z0-9]*|[A-Z]{2,}[0-9]+/g;
const ASCII_TERM = /^[a-z0-9]+$/;

export interface WeightedTerm {
  term: string;
  /** 2 for an identifier, 1 for a word, 0.5 for a generic word. */
  weight: number;
}

function keepWord(word: string): boolean {
  if (STOP_WORDS.has(word)) return false;
  // Single Latin letters and bare small numbers match everything.
  if (/^[a-z]$/.test(word) || /^[0-9]{1,2}$/.test(word)) return false;
  return true;
}

/** The weighted terms of a text, each once (the highest weight wins). */
export function weightedTerms(text: string): WeightedTerm[] {
  const terms = new Map<string, number>();
  const put = (term: string, weight: number) => {
    if (term.length === 0) return;
    terms.set(term, Math.max(terms.get(term) ?? 0, weight));
  };
  for (const match of text.matchAll(IDENTIFIER)) {
    const joined = match[0].toLowerCase().replace(/[^a-z0-9]/g, "");
    if (joined.length >= 4) put(joined, 2);
  }
  for (const segment of textSegments(text)) {
    if (!segment.cjk) {
      if (!keepWord(segment.text)) continue;
      const stem = stemEnglish(segment.text);
      put(stem, GENERIC_STEMS.has(stem) ? 0.5 : 1);
      continue;
    }
    for (const word of cjkWords(segment.text)) {
      const trimmed = word.trim().toLowerCase();
      if (trimmed === "" || STOP_WORDS.has(trimmed)) continue;
      // jieba passes Latin text inside a run through; the Latin leg above has it already.
      if (ASCII_TERM.test(trimmed)) continue;
      put(trimmed, 1);
    }
  }
  return [...terms].map(([term, weight]) => ({ term, weight }));
}

/** The summed weight of the query terms among `terms`. */
export function weightOf(query: readonly WeightedTerm[], terms: ReadonlySet<string>): number {
  let sum = 0;
  for (const { term, weight } of query) if (terms.has(term)) sum += weight;
  return sum;
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
  let total = 0;
  let covered = 0;
  for (const { term, weight } of query) {
    total += weight;
    if (documentTerms.has(term)) covered += weight;
  }
  if (total === 0) return 0;
  return Math.min(1, covered / Math.min(Math.max(total, MIN_QUERY_WEIGHT), saturationWeight));
}
