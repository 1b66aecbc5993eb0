// Memory search as the agent asks it: full-text alone when there is no embedder (or no vector
// index yet), hybrid (vectors and full text, ranked by hybridRank) when there is. Embedding
// providers live elsewhere; this takes a function.
import { ResonError } from "../core/errors.js";
import type { MemoryItemRecord, MemoryKind, Store } from "../store/index.js";
import { HYBRID_DEFAULTS, type HybridRankOptions, hybridRank, type RankedHit } from "./hybrid-rank.js";

export type Embed = (text: string, signal?: AbortSignal) => Promise<Float32Array>;

export interface SearchMemoryOptions
  extends Partial<
    Pick<
      HybridRankOptions<MemoryItemRecord>,
      "vectorWeight" | "textWeight" | "halfLifeDays" | "mmrLambda" | "minScore"
    >
  > {
  store: Store;
  query: string;
  projectKey: string;
  sessionId?: string;
  kinds?: readonly MemoryKind[];
  since?: number;
  /** Hits wanted (default 6). */
  limit?: number;
  /** Embeds the query with the model of the project's index identity; none: full text alone. */
  embed?: Embed;
  /** Kinds that do not age (default notes). */
  evergreenKinds?: readonly MemoryKind[];
  now?: number;
  signal?: AbortSignal;
}

export interface MemorySearchResult {
  mode: "hybrid" | "text";
  hits: RankedHit<MemoryItemRecord>[];
  /** Why an embedder was given but vectors were not used. */
  note?: string;
}

export const DEFAULT_MEMORY_HITS = 6;

export async function searchMemory(options: SearchMemoryOptions): Promise<MemorySearchResult> {
  const { store, query, signal } = options;
  signal?.throwIfAborted();
  const limit = options.limit ?? DEFAULT_MEMORY_HITS;
  const filter = {
    projectKey: options.projectKey,
    ...(options.sessionId !== undefined ? { sessionId: options.sessionId } : {}),
    ...(options.kinds !== undefined ? { kinds: options.kinds } : {}),
    ...(options.since !== undefined ? { since: options.since } : {}),
    limit: limit * HYBRID_DEFAULTS.candidateMultiplier,
  };
  const identity = options.embed ? await store.memory.indexIdentity(options.projectKey) : undefined;
  const embed = identity ? options.embed : undefined;
  const vectorLeg = async () => {
    if (!embed || !identity) return [];
    const vector = await embed(query, signal);
    signal?.throwIfAborted();
    if (vector.length !== identity.dims) {
      throw new ResonError(
        "usage_error",
        `The embedder gave ${vector.length} dimensions; the memory index holds ${identity.model} vectors of ${identity.dims}.`,
        { hint: "Embed with the index's model, or set a new index identity and re-embed the memory." },
      );
    }
    return store.memory.vectorSearch(vector, identity.model, filter);
  };
  const [text, vector] = await Promise.all([store.memory.search(query, filter), vectorLeg()]);
  signal?.throwIfAborted();
  const evergreen = new Set<MemoryKind>(options.evergreenKinds ?? ["note"]);
  const hits = hybridRank(
    {
      text: text.map((m) => ({ item: m.item, score: m.score })),
      vector: vector.map((m) => ({ item: m.item, score: m.score })),
    },
    {
      limit,
      now: options.now ?? Date.now(),
      isEvergreen: (item) => evergreen.has(item.kind),
      ...(options.vectorWeight !== undefined ? { vectorWeight: options.vectorWeight } : {}),
      ...(options.textWeight !== undefined ? { textWeight: options.textWeight } : {}),
      ...(options.halfLifeDays !== undefined ? { halfLifeDays: options.halfLifeDays } : {}),
      ...(options.mmrLambda !== undefined ? { mmrLambda: options.mmrLambda } : {}),
      ...(options.minScore !== undefined ? { minScore: options.minScore } : {}),
    },
  );
  if (embed) return { mode: "hybrid", hits };
  if (options.embed) return { mode: "text", hits, note: "No vector index identity is set for this project." };
  return { mode: "text", hits };
}
