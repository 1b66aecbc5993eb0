// Memory on SQLite: FTS5 with the trigram tokenizer (any script, substrings of three or more
// characters), LIKE for shorter terms, and sqlite-vec's exact cosine distance when the
// extension loaded (else the store searches vectors in process).

import { vectorToBytes } from "../../core/vector-bytes.js";
import type { MemoryDialect, NativeVectors, TextQueryPlan } from "../memory-dialect.js";
import { characterNgrams, charCount, querySegments } from "../text-terms.js";

/** Terms of one MATCH expression, at most: a long pasted query stays a bounded query. */
const MAX_TERMS = 64;

function quoted(term: string): string {
  return `"${term.replaceAll('"', '""')}"`;
}

/**
 * Words of three or more characters are matched as they are; CJK runs of three or more by
 * their trigrams, OR-ed, so a sentence matches text sharing part of it; anything shorter is a
 * substring. Short Latin words ("a", "to") are dropped unless the query has nothing else.
 */
export function planSqliteText(query: string): TextQueryPlan {
  const terms = new Set<string>();
  const substrings = new Set<string>();
  const shortWords = new Set<string>();
  let indexedUnits = 0;
  for (const segment of querySegments(query)) {
    const length = charCount(segment.text);
    if (length >= 3) {
      const before = terms.size;
      for (const term of segment.cjk ? characterNgrams(segment.text, 3) : [segment.text]) {
        if (terms.size < MAX_TERMS) terms.add(term);
      }
      if (terms.size > before) indexedUnits++;
    } else if (segment.cjk) substrings.add(segment.text);
    else shortWords.add(segment.text);
  }
  if (terms.size === 0 && substrings.size === 0) for (const word of shortWords) substrings.add(word);
  return {
    indexed: terms.size === 0 ? undefined : [...terms].map(quoted).join(" OR "),
    indexedUnits,
    substrings: [...substrings],
  };
}

export const SQLITE_VEC: NativeVectors = {
  kind: "sqlite-vec",
  nearest: (ownerKind, model, dims, vector, projectKey, limit) => ({
    sql: `SELECT owner_id, 1 - vec_distance_cosine(vec, ?) AS similarity FROM embeddings
      WHERE owner_kind = ? AND project_key = ? AND model = ? AND dims = ?
      ORDER BY similarity DESC LIMIT ?`,
    params: [vectorToBytes(vector), ownerKind, projectKey, model, dims, limit],
  }),
};

/**
 * `vectors` answers whether sqlite-vec is there; it is asked only when vectors are written or
 * searched, so the store can load the extension then (a run that touches no vector never does).
 */
export function sqliteMemoryDialect(vectors: () => NativeVectors | undefined): MemoryDialect {
  return {
    textIndex: "FTS5 trigram",
    jsonValues: "json_each(?) AS t",
    like: "LIKE",
    planText: planSqliteText,
    textLeg: {
      // CROSS JOIN keeps the index outermost; a plain join lets the planner walk the
      // project's items and run the MATCH once per item (hundreds of times slower).
      from: "memory_fts CROSS JOIN memory_items m ON m.seq = memory_fts.rowid",
      match: "memory_fts MATCH ?",
      relevance: "-bm25(memory_fts)",
    },
    experienceText: {
      from: "experience_fts CROSS JOIN experiences x ON x.rowid = experience_fts.rowid",
      match: "experience_fts MATCH ?",
      relevance: "-bm25(experience_fts)",
      anyOf: (terms) => terms.map(quoted).join(" OR "),
    },
    get vectors() {
      return vectors();
    },
    get nativeSearch() {
      return vectors() !== undefined;
    },
  };
}
