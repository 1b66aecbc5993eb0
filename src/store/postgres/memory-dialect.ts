// Memory on PostgreSQL: a tsvector ('simple' configuration) of the item's words and the
// bigrams of its CJK runs, so Chinese is searchable whatever the database's locale, ILIKE for
// single CJK characters, and pgvector (pgvector.ts) when the server has the extension (else
// the store searches vectors in process).
import type { MemoryDialect, NativeVectors, TextQueryPlan } from "../memory-dialect.js";
import { characterNgrams, charCount, querySegments, textTokens } from "../text-terms.js";

const MAX_TERMS = 64;
/** Tokens of an item put in its tsvector, at most (a tsvector is limited to 1 MB). */
const MAX_INDEXED_TOKENS = 50_000;

/** What to_tsvector sees of a text: its tokens (CJK as bigrams) separated by spaces. */
export function indexedTokens(text: string): string {
  return textTokens(text).slice(0, MAX_INDEXED_TOKENS).join(" ");
}

/**
 * Words match as prefixes (deploy → deployment) once they have three characters, exactly
 * below that; CJK runs of two or more by their bigrams, OR-ed; a single CJK character by
 * substring. The tokens hold letters, marks and digits only, so they need no quoting beyond
 * the quotes.
 */
export function planPostgresText(query: string): TextQueryPlan {
  const terms = new Set<string>();
  const substrings = new Set<string>();
  let indexedUnits = 0;
  for (const segment of querySegments(query)) {
    const length = charCount(segment.text);
    if (segment.cjk && length === 1) {
      substrings.add(segment.text);
      continue;
    }
    const before = terms.size;
    const grams = segment.cjk ? characterNgrams(segment.text, 2) : [segment.text];
    for (const gram of grams) {
      const term = !segment.cjk && length >= 3 ? `'${gram}':*` : `'${gram}'`;
      if (terms.size < MAX_TERMS) terms.add(term);
    }
    if (terms.size > before) indexedUnits++;
  }
  return {
    indexed: terms.size === 0 ? undefined : [...terms].join(" | "),
    indexedUnits,
    substrings: [...substrings],
  };
}

export function postgresMemoryDialect(
  vectors: NativeVectors | undefined,
  nativeSearch: boolean,
): MemoryDialect {
  return {
    textIndex: "tsvector (words and CJK bigrams)",
    jsonValues: "jsonb_array_elements_text(CAST(? AS jsonb)) AS t(value)",
    like: "ILIKE",
    planText: planPostgresText,
    textLeg: {
      from: "memory_items m, to_tsquery('simple', ?) AS q",
      match: "m.tsv @@ q",
      // ts_rank, not ts_rank_cd: the same ordering by term frequency at less than half the cost
      // when a common word matches a fifth of the items.
      relevance: "ts_rank(m.tsv, q)",
    },
    experienceText: {
      from: "experiences x, to_tsquery('simple', ?) AS q",
      match: "x.tsv @@ q",
      relevance: "ts_rank(x.tsv, q)",
      // Terms are letters, digits and CJK only (search-terms.ts); anything else is dropped.
      anyOf: (terms) =>
        terms
          .filter((term) => /^[\p{L}\p{N}\p{M}]+$/u.test(term))
          .map((term) => `'${term}'`)
          .join(" | "),
    },
    itemIndexColumn: { name: "tsv", placeholder: "to_tsvector('simple', ?)", value: indexedTokens },
    ...(vectors ? { vectors } : {}),
    nativeSearch,
  };
}
