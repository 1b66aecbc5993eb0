// Finding the experiences a task needs: ranked lexical search in the store (condition, rule and
// retrieval keys; a normalised score, so one threshold holds in any project), and, with an
// embedding model, vectors of the same text counted only where a hit stands out from the
// project's other rules. Two uses: the few rules a run is shown (past a threshold), and the
// broad net a reflection is shown (the best by either signal, no threshold), so a candidate
// worded unlike the task can still be confirmed.
import type { EmbeddingProvider } from "../../providers/index.js";
import type { Experience, ExperienceStatus, Store } from "../../store/index.js";
import { rankExperiences } from "./ranking.js";
import { standoutMatches } from "./vector-threshold.js";

export interface RetrievalDeps {
  store: Store;
  projectKey: string;
  /** Masks secrets in what is sent to the embedder. */
  redact: (text: string) => string;
  embedder?: EmbeddingProvider;
}

/** The score a text match needs: 1.5 of the query's weight, e.g. two words or one identifier. */
export const MIN_TEXT_MATCH = 0.75;
/** Text candidates scored per search (the index ranks them first). */
const TEXT_CANDIDATES = 40;
/** Vector hits a search asks for: the best few and the background they are measured against. */
const VECTOR_CANDIDATES = 40;
/** The query text embedded, at most (characters). */
const QUERY_CHARS = 2000;

export interface ExperienceHit {
  experience: Experience;
  /** 0..1: the better of the text score and the vector match. */
  match: number;
  textScore: number;
  vectorMatch: number;
  /** The raw cosine (0 when the vector search did not return it). */
  cosine: number;
}

async function vectorHits(
  deps: RetrievalDeps,
  task: string,
  status: readonly ExperienceStatus[],
  signal: AbortSignal | undefined,
): Promise<{ experience: Experience; score: number }[]> {
  const embedder = deps.embedder;
  if (!embedder) return [];
  await embedMissing(deps, "experience", signal);
  const text = deps.redact(task.replace(/\s+/g, " ").trim().slice(0, QUERY_CHARS));
  const [query] = await embedder.embed([text], signal ? { signal } : {});
  if (!query) return [];
  return deps.store.experiences.vectorSearch(query, embedder.id, {
    projectKey: deps.projectKey,
    status,
    limit: VECTOR_CANDIDATES,
  });
}

/** Every experience either signal finds for the task, with both scores, best first. */
export async function scoreExperiences(
  deps: RetrievalDeps,
  task: string,
  status: readonly ExperienceStatus[],
  signal?: AbortSignal,
): Promise<ExperienceHit[]> {
  const [text, vectors] = await Promise.all([
    deps.store.experiences.search(task, { projectKey: deps.projectKey, status, limit: TEXT_CANDIDATES }),
    // An embedder that fails leaves full text to decide: the run must not wait on it.
    vectorHits(deps, task, status, signal).catch(() => []),
  ]);
  const hits = new Map<string, ExperienceHit>();
  for (const { experience, score } of text) {
    hits.set(experience.id, { experience, match: score, textScore: score, vectorMatch: 0, cosine: 0 });
  }
  // The background is every rule the vector search returned, whatever its status.
  const standout = standoutMatches(vectors.map((v) => ({ id: v.experience.id, score: v.score })));
  for (const { experience, score } of vectors) {
    const vectorMatch = standout.get(experience.id) ?? 0;
    const hit = hits.get(experience.id);
    if (hit) {
      hit.vectorMatch = vectorMatch;
      hit.cosine = score;
      hit.match = Math.max(hit.match, vectorMatch);
      continue;
    }
    hits.set(experience.id, { experience, match: vectorMatch, textScore: 0, vectorMatch, cosine: score });
  }
  return [...hits.values()].sort((a, b) => b.match - a.match || (a.experience.id < b.experience.id ? -1 : 1));
}

/** The experiences a run of `task` should be shown: past the threshold, weighted by record. */
export async function matchingExperiences(
  deps: RetrievalDeps,
  task: string,
  limit: number,
  signal?: AbortSignal,
): Promise<ExperienceHit[]> {
  const hits = await scoreExperiences(deps, task, ["active"], signal);
  const ranked = rankExperiences(
    hits.map((hit) => ({ ...hit.experience, match: hit.match })),
    { limit, minMatch: MIN_TEXT_MATCH },
  );
  const byId = new Map(hits.map((hit) => [hit.experience.id, hit]));
  return ranked.map((experience) => byId.get(experience.id)!);
}

/**
 * The rules a reflection on `task` is shown: the best `limit` by either signal, active or
 * candidate, with no threshold, so agreement can reach a rule worded unlike the task.
 */
export async function broadNet(
  deps: RetrievalDeps,
  task: string,
  limit: number,
  signal?: AbortSignal,
): Promise<Experience[]> {
  const hits = await scoreExperiences(deps, task, ["active", "candidate"], signal);
  // Taken in turn from the text ranking and the vector ranking, so neither crowds out the other.
  const byText = hits.filter((hit) => hit.textScore > 0);
  const byVector = [...hits].filter((hit) => hit.cosine > 0).sort((a, b) => b.cosine - a.cosine);
  const picked = new Map<string, Experience>();
  for (let i = 0; picked.size < limit && (i < byText.length || i < byVector.length); i++) {
    for (const hit of [byText[i], byVector[i]]) {
      if (hit && picked.size < limit) picked.set(hit.experience.id, hit.experience);
    }
  }
  return [...picked.values()];
}

/**
 * Embeds what has no vector of the current model yet (new items, or everything after a model
 * change) and records the model as the project's index identity, so vectors never mix.
 */
export async function embedMissing(
  deps: RetrievalDeps,
  ownerKind: "memory" | "experience",
  signal: AbortSignal | undefined,
): Promise<void> {
  const embedder = deps.embedder;
  if (!embedder) return;
  const { store, projectKey } = deps;
  const missing = await store.memory.missingEmbeddings(embedder.id, { projectKey, ownerKind, limit: 200 });
  if (missing.length === 0) return;
  const vectors = await embedder.embed(
    missing.map((owner) => deps.redact(owner.text)),
    signal ? { signal } : {},
  );
  const at = Date.now();
  await store.memory.putEmbeddings(
    missing.map((owner, i) => ({
      ownerKind: owner.ownerKind,
      ownerId: owner.ownerId,
      projectKey: owner.projectKey,
      model: embedder.id,
      vector: vectors[i]!,
      createdAt: at,
    })),
  );
  const identity = await store.memory.indexIdentity(projectKey);
  const dims = vectors[0]?.length ?? 0;
  if (dims > 0 && (identity?.model !== embedder.id || identity.dims !== dims))
    await store.memory.setIndexIdentity({ model: embedder.id, dims }, { projectKey, at });
}
