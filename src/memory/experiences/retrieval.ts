// Finding the experiences a task needs: ranked lexical search in the store (condition, rule and
// retrieval keys; a normalised score, so one threshold holds in any project), and, with an
// embedding model, vectors of the same text counted only where a hit stands out from a fixed
// background of unrelated texts (so the project's first rule can be found by meaning). Two uses: the few rules a run is shown (past a threshold), and the
// broad net a reflection is shown (the best by either signal, no threshold), so a candidate
// worded unlike the task can still be confirmed.
import type { EmbeddingProvider } from "../../providers/index.js";
import type { Experience, ExperienceStatus, Store } from "../../store/index.js";
import { ONE_WORD_SCORE, type WeightedTerm, weightedTerms, weightOf } from "../../store/index.js";
import { rankExperiences } from "./ranking.js";
import { backgroundVectors, cosine } from "./vector-background.js";
import { calibratedScores } from "./vector-threshold.js";

export interface RetrievalDeps {
  store: Store;
  projectKey: string;
  /** Masks secrets in what is sent to the embedder. */
  redact: (text: string) => string;
  embedder?: EmbeddingProvider;
}

/** The score a text match needs: 1.5 of the query's weight, e.g. two words or one identifier. */
export const MIN_TEXT_MATCH = 0.75;
/** A weaker text match (one word) passes when the rule's vector stands out this far (z). */
const SUPPORTED_TEXT_MATCH = 0.5;
const SUPPORTING_Z = 3;
/** A rule no word of the task names passes on its vector alone only when it stands out this far. */
const VECTOR_ALONE_Z = 6;
/**
 * A vector counts for a run only for the project's nearest rule, and only when it stands out
 * from the next nearest by this much (z): the background is everyday texts, so for a technical
 * task every technical rule rises above it, and a rule that is merely one of several standing
 * out is no evidence that the task needs it (measured with a real sentence model,
 * bench/results/learning-2026-12-06c.md: without this, its vectors lifted more wrong lessons
 * and unrelated matches than right ones). The same stance as a text match on words alone,
 * which must stand out from the other passing rules.
 */
const VECTOR_LEAD_Z = 1;
/**
 * A second rule is shown beside the best only when it covers nearly as much of the task and
 * brings words of its own (a content word the best did not match): a rule that matches a
 * subset of what the best matched is the same evidence read twice.
 */
const SECOND_RULE_COVERAGE = 0.8;
const SECOND_RULE_OWN_WEIGHT = 1;
/**
 * A text match that rests on words alone (no identifier or error code) must cover more of the
 * task than any other rule that passes too, by this much weight (a quarter of an ordinary
 * word), or as much and rank above it in the index: two rules that meet a task on as much
 * common ground are told apart by chance, and a second one shown is as likely the wrong lesson
 * as the right one.
 */
const WORD_MATCH_MARGIN = 0.25;
/** Text candidates scored per search (the index ranks them first). */
const TEXT_CANDIDATES = 40;
/** Vector hits a search asks for (for the reflection's broad net; a run is shown few). */
const VECTOR_CANDIDATES = 40;
/** The query text embedded, at most (characters). */
const QUERY_CHARS = 2000;

export interface ExperienceHit {
  experience: Experience;
  /** 0..1: the text score, raised to the threshold when the rule's vector supports it. */
  match: number;
  textScore: number;
  /** The query's weight the rule's text covers, and the query terms it holds. */
  covered: number;
  matched: string[];
  /** The index's rank of the text match (higher better; 0 for none). */
  rank: number;
  /** The raw cosine, and how far it stands out of the background texts (z; 0 unknown). */
  cosine: number;
  z: number;
  /** The z that counts for a run: z for the nearest rule leading the next by VECTOR_LEAD_Z, else 0. */
  leadZ: number;
}

interface VectorHits {
  hits: { experience: Experience; score: number }[];
  /** The task's cosines with the background texts. */
  background: number[];
}

async function vectorHits(
  deps: RetrievalDeps,
  task: string,
  status: readonly ExperienceStatus[],
  signal: AbortSignal | undefined,
): Promise<VectorHits> {
  const embedder = deps.embedder;
  if (!embedder) return { hits: [], background: [] };
  await embedMissing(deps, "experience", signal);
  const text = deps.redact(task.replace(/\s+/g, " ").trim().slice(0, QUERY_CHARS));
  const [[query], background] = await Promise.all([
    embedder.embed([text], signal ? { signal } : {}),
    backgroundVectors(embedder, signal),
  ]);
  if (!query) return { hits: [], background: [] };
  const hits = await deps.store.experiences.vectorSearch(query, embedder.id, {
    projectKey: deps.projectKey,
    status,
    limit: VECTOR_CANDIDATES,
  });
  return { hits, background: background.map((vector) => cosine(query, vector)) };
}

/** The nearest rule by vector when it stands out from the next nearest by VECTOR_LEAD_Z (z). */
function leadingHit(
  hits: readonly { experience: Experience; score: number }[],
  standout: ReadonlyMap<string, number>,
): string | undefined {
  const [first, second] = [...hits].sort((a, b) => b.score - a.score);
  if (!first) return undefined;
  const zOf = (id: string) => standout.get(id) ?? 0;
  if (second && zOf(first.experience.id) - zOf(second.experience.id) < VECTOR_LEAD_Z) return undefined;
  return first.experience.id;
}

function matchOf(textScore: number, z: number): number {
  if (textScore >= MIN_TEXT_MATCH) return textScore;
  if (textScore >= SUPPORTED_TEXT_MATCH && z >= SUPPORTING_Z) return MIN_TEXT_MATCH;
  if (z >= VECTOR_ALONE_Z) return MIN_TEXT_MATCH;
  return textScore;
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
    vectorHits(deps, task, status, signal).catch((): VectorHits => ({ hits: [], background: [] })),
  ]);
  const query = weightedTerms(task);
  const hits = new Map<string, ExperienceHit>();
  for (const { experience, score, rank, matched = [] } of text) {
    const covered = weightOf(query, new Set(matched));
    hits.set(experience.id, {
      experience,
      match: score,
      textScore: score,
      covered,
      matched,
      rank: rank ?? 0,
      cosine: 0,
      z: 0,
      leadZ: 0,
    });
  }
  const standout = calibratedScores(
    vectors.hits.map((v) => ({ id: v.experience.id, score: v.score })),
    vectors.background,
  );
  const leader = leadingHit(vectors.hits, standout);
  for (const { experience, score } of vectors.hits) {
    const z = standout.get(experience.id) ?? 0;
    const hit = hits.get(experience.id) ?? {
      experience,
      match: 0,
      textScore: 0,
      covered: 0,
      matched: [],
      rank: 0,
      cosine: 0,
      z: 0,
      leadZ: 0,
    };
    hit.cosine = score;
    hit.z = z;
    hit.leadZ = experience.id === leader ? z : 0;
    hit.match = matchOf(hit.textScore, hit.leadZ);
    hits.set(experience.id, hit);
  }
  return [...hits.values()].sort(
    (a, b) =>
      b.match - a.match ||
      b.covered - a.covered ||
      b.rank - a.rank ||
      b.cosine - a.cosine ||
      (a.experience.id < b.experience.id ? -1 : 1),
  );
}

/** The best hit, and those beside it that cover nearly as much and bring words of their own. */
function distinctEvidence(hits: readonly ExperienceHit[], query: readonly WeightedTerm[]): ExperienceHit[] {
  const [best, ...rest] = hits;
  if (!best) return [];
  const bestTerms = new Set(best.matched);
  return [
    best,
    ...rest.filter((hit) => {
      if (hit.covered < SECOND_RULE_COVERAGE * best.covered) return false;
      const both = weightOf(query, new Set([...bestTerms, ...hit.matched]));
      return both - best.covered >= SECOND_RULE_OWN_WEIGHT;
    }),
  ];
}

/**
 * The hits whose text match rests on words alone while another passing rule covers as much of
 * the task (more, or within WORD_MATCH_MARGIN and ranked as high) fall back to what their
 * vector says (matchOf with the text score under the threshold): an uncontested match, or one
 * with an identifier, stands.
 */
function uncontested(hits: readonly ExperienceHit[], query: readonly WeightedTerm[]): ExperienceHit[] {
  const identifiers = new Set(query.filter((t) => t.identifier).map((t) => t.term));
  const passing = hits.filter((hit) => hit.textScore >= MIN_TEXT_MATCH);
  return hits.map((hit) => {
    if (hit.textScore < MIN_TEXT_MATCH || hit.matched.some((term) => identifiers.has(term))) return hit;
    const contested = passing.some(
      (other) =>
        other !== hit &&
        other.covered > hit.covered - WORD_MATCH_MARGIN &&
        (other.covered > hit.covered || other.rank >= hit.rank),
    );
    if (!contested) return hit;
    const textScore = Math.min(hit.textScore, ONE_WORD_SCORE);
    return { ...hit, textScore, match: matchOf(textScore, hit.leadZ) };
  });
}

/** The experiences a run of `task` should be shown: past the threshold, weighted by record. */
export async function matchingExperiences(
  deps: RetrievalDeps,
  task: string,
  limit: number,
  signal?: AbortSignal,
): Promise<ExperienceHit[]> {
  const query = weightedTerms(task);
  const hits = uncontested(await scoreExperiences(deps, task, ["active"], signal), query)
    .filter((hit) => hit.match >= MIN_TEXT_MATCH)
    .sort((a, b) => b.match - a.match || b.covered - a.covered || b.rank - a.rank);
  const kept = distinctEvidence(hits, query);
  const ranked = rankExperiences(
    kept.map((hit) => ({ ...hit.experience, match: hit.match })),
    { limit, minMatch: MIN_TEXT_MATCH },
  );
  const byId = new Map(kept.map((hit) => [hit.experience.id, hit]));
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
  const byVector = hits.filter((hit) => hit.cosine > 0).sort((a, b) => b.cosine - a.cosine);
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
