// Hybrid ranking of memory candidates, OpenClaw's (memory-tools.md §1.6): the candidates of
// the vector and full-text legs merged by id, their scores weighted 0.7/0.3, decayed by age
// with a half-life, cut at a minimum score, then picked by maximal marginal relevance so
// near-duplicates do not crowd out the rest. Pure: the same inputs give the same order.
import { jaccard, tokenize } from "./tokens.js";

export interface RankItem {
  id: string;
  text: string;
  /** Epoch ms. */
  createdAt: number;
}

export interface Scored<T> {
  item: T;
  /** 0..1 for text (1 the best match of the query); cosine similarity for vectors. */
  score: number;
}

export interface RankedHit<T> {
  item: T;
  /** The combined score after decay, 0..1; what minScore cuts. */
  score: number;
  textScore: number;
  vectorScore: number;
}

export interface HybridRankOptions<T> {
  /** Hits to return at most. */
  limit: number;
  /** "Now" for the age decay, epoch ms. */
  now: number;
  vectorWeight?: number;
  textWeight?: number;
  /** Days after which a score is halved; Infinity turns decay off. */
  halfLifeDays?: number;
  /** MMR's λ: 1 ranks by score alone, lower values favour diversity. */
  mmrLambda?: number;
  minScore?: number;
  /** Items that do not age (notes, say); default none. */
  isEvergreen?: (item: T) => boolean;
}

export const HYBRID_DEFAULTS = {
  vectorWeight: 0.7,
  textWeight: 0.3,
  halfLifeDays: 30,
  mmrLambda: 0.7,
  minScore: 0.35,
  /** Candidates asked of each leg, per hit wanted. */
  candidateMultiplier: 4,
} as const;

const DAY_MS = 86_400_000;

function clamp01(value: number): number {
  if (!Number.isFinite(value)) return 0;
  return Math.min(1, Math.max(0, value));
}

/**
 * Merges and ranks the two legs. A leg with no candidates carries no weight (without vectors
 * the score is the text score); an item missing from one leg scores 0 there.
 */
export function hybridRank<T extends RankItem>(
  legs: { text: readonly Scored<T>[]; vector: readonly Scored<T>[] },
  options: HybridRankOptions<T>,
): RankedHit<T>[] {
  const vectorWeight = legs.vector.length > 0 ? (options.vectorWeight ?? HYBRID_DEFAULTS.vectorWeight) : 0;
  const textWeight = legs.text.length > 0 ? (options.textWeight ?? HYBRID_DEFAULTS.textWeight) : 0;
  const totalWeight = vectorWeight + textWeight;
  if (totalWeight <= 0 || options.limit <= 0) return [];
  const halfLifeDays = options.halfLifeDays ?? HYBRID_DEFAULTS.halfLifeDays;
  const minScore = options.minScore ?? HYBRID_DEFAULTS.minScore;

  const merged = new Map<string, { item: T; textScore: number; vectorScore: number }>();
  for (const { item, score } of legs.text) {
    merged.set(item.id, { item, textScore: clamp01(score), vectorScore: 0 });
  }
  for (const { item, score } of legs.vector) {
    const entry = merged.get(item.id);
    if (entry) entry.vectorScore = Math.max(entry.vectorScore, clamp01(score));
    else merged.set(item.id, { item, textScore: 0, vectorScore: clamp01(score) });
  }

  const candidates: RankedHit<T>[] = [];
  for (const entry of merged.values()) {
    let score = (vectorWeight * entry.vectorScore + textWeight * entry.textScore) / totalWeight;
    if (Number.isFinite(halfLifeDays) && halfLifeDays > 0 && !options.isEvergreen?.(entry.item)) {
      const ageDays = Math.max(0, options.now - entry.item.createdAt) / DAY_MS;
      score *= Math.exp((-Math.LN2 * ageDays) / halfLifeDays);
    }
    if (score >= minScore) candidates.push({ ...entry, score });
  }
  // A stable order before MMR: score, then newer, then id.
  candidates.sort(
    (a, b) => b.score - a.score || b.item.createdAt - a.item.createdAt || (a.item.id < b.item.id ? -1 : 1),
  );
  return mmr(candidates, options.limit, options.mmrLambda ?? HYBRID_DEFAULTS.mmrLambda);
}

/**
 * Maximal marginal relevance: repeatedly takes the candidate with the best
 * λ·score − (1−λ)·(its highest Jaccard similarity to one already taken). O(limit × n).
 */
export function mmr<T extends RankItem>(
  candidates: readonly RankedHit<T>[],
  limit: number,
  lambda: number = HYBRID_DEFAULTS.mmrLambda,
): RankedHit<T>[] {
  const rest = candidates.map((hit) => ({ hit, terms: tokenize(hit.item.text), maxSimilarity: 0 }));
  const picked: RankedHit<T>[] = [];
  while (picked.length < limit && rest.length > 0) {
    let bestAt = 0;
    let bestValue = Number.NEGATIVE_INFINITY;
    rest.forEach((entry, at) => {
      const value = lambda * entry.hit.score - (1 - lambda) * entry.maxSimilarity;
      if (value > bestValue) {
        bestValue = value;
        bestAt = at;
      }
    });
    const [chosen] = rest.splice(bestAt, 1);
    if (!chosen) break;
    picked.push(chosen.hit);
    for (const entry of rest) {
      entry.maxSimilarity = Math.max(entry.maxSimilarity, jaccard(entry.terms, chosen.terms));
    }
  }
  return picked;
}
