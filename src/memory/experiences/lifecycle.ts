// What keeps a rule set from silting up: keys merged when a reflection confirms or edits a
// rule (the old ones kept, new ones added), and candidates that no run backs expiring after a
// number of the project's runs, so a rule nothing confirms is not kept waiting forever.
import type { Store } from "../../store/index.js";

/** Retrieval keys a rule holds at most. */
const MAX_KEYS = 24;

/** The keys first, then new ones not among them (case aside), at most 24. */
export function mergeKeys(current: readonly string[], added: readonly string[]): string[] {
  const seen = new Set(current.map((key) => key.toLowerCase()));
  const out = [...current];
  for (const key of added) {
    if (seen.has(key.toLowerCase())) continue;
    seen.add(key.toLowerCase());
    out.push(key);
  }
  return out.slice(0, MAX_KEYS);
}

/**
 * Retires the candidates of a project that gained no evidence in its last `runs` runs (as the
 * remembered tasks count them: one user turn per run); the ids retired.
 */
export async function expireCandidates(store: Store, projectKey: string, runs: number): Promise<string[]> {
  const candidates = await store.experiences.list({
    projectKey,
    includeGlobal: false,
    status: "candidate",
    limit: 500,
  });
  if (candidates.length === 0) return [];
  const recent = await store.memory.getRecent({ projectKey, kinds: ["turn"], limit: runs * 4 });
  const runStarts = new Map<string, number>();
  for (const item of recent) {
    if (item.role !== "user" || item.traceId === null) continue;
    runStarts.set(item.traceId, Math.min(runStarts.get(item.traceId) ?? item.createdAt, item.createdAt));
  }
  if (runStarts.size < runs) return [];
  // The runs' times newest first: a candidate with no evidence since the runs-th is stale.
  const cutoff = [...runStarts.values()].sort((a, b) => b - a)[runs - 1]!;
  const expired: string[] = [];
  for (const candidate of candidates) {
    const lastEvidence = Math.max(candidate.createdAt, ...candidate.evidence.map((item) => item.at));
    if (lastEvidence >= cutoff) continue;
    await store.experiences.retire(candidate.id);
    expired.push(candidate.id);
  }
  return expired;
}
