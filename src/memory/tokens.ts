// Terms for comparing snippets (MMR's Jaccard similarity): the same cut as the text indexes
// use, words for spaced scripts and character bigrams for Chinese, Japanese and Korean, so
// "数据库连接" and "数据库超时" share 数据 and 据库 as they share meaning.
import { textTokens } from "../store/index.js";

/** The distinct terms of a text: lowercased words, and bigrams of CJK runs. */
export function tokenize(text: string): Set<string> {
  return new Set(textTokens(text));
}

/** |a ∩ b| / |a ∪ b|; 0 when both are empty. */
export function jaccard(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
  if (a.size === 0 && b.size === 0) return 0;
  const [small, large] = a.size <= b.size ? [a, b] : [b, a];
  let shared = 0;
  for (const term of small) if (large.has(term)) shared++;
  return shared / (a.size + b.size - shared);
}
