// Learning across runs: before a run, the experiences whose condition matches the task and
// the memories of earlier sessions that bear on it go into the system prompt's memory section;
// after it, the task and answer are remembered, the outcome is counted for exactly the
// experiences the run was shown, and (when it hit trouble, or always if configured) the
// summary model reflects on the run and proposes rules as ExpeL's add/agree/edit/remove
// operations. A run the provider failed (a rejected key, an outage, a quota) says nothing
// about the task: it is not counted nor reflected on, and remembered only if the model
// answered in it. A rule is used only once enough independent runs back it, never when it came
// from untrusted content (web pages) unless the user confirms it, and it retires when it
// keeps failing. Everything stored is masked for secrets first.
import { keepHeadAndTail, transcriptOf, turnsToHistory } from "../context/index.js";
import { isProviderErrorCode } from "../core/errors.js";
import type { LearningReport } from "../core/events.js";
import { seededUlid, ulid, ulidTimeMs } from "../core/ids.js";
import {
  experiencesSection,
  jaccard,
  parseReflectionOps,
  REFLECTION_SYSTEM_PROMPT,
  rankExperiences,
  reflectionRequest,
  sanitiseOps,
  searchMemory,
  shouldRetire,
  tokenize,
  voteDelta,
} from "../memory/index.js";
import type { EmbeddingProvider, Provider } from "../providers/index.js";
import type {
  Experience,
  ExperienceEvidence,
  MemoryItemInput,
  Outcome,
  Provenance,
  Store,
  TurnRecord,
  WriteOp,
} from "../store/index.js";

export interface LearningSettings {
  reflect: "auto" | "always" | "off";
  minEvidence: number;
  maxExperiences: number;
  maxMemories: number;
}

export interface LearningDeps {
  store: Store;
  projectKey: string;
  /** Writes the reflection; the summary model. */
  reflector: Provider;
  /** Masks secrets: applied to everything remembered or sent for reflection. */
  redact: (text: string) => string;
  /** Similarity search when an embedding model is configured. */
  embedder?: EmbeddingProvider;
  settings: LearningSettings;
}

/** What a run was given from memory. */
export interface Recall {
  /** The memory section of the system prompt ("" for none). */
  text: string;
  experienceIds: string[];
  memoryIds: string[];
}

/** Runs that took this many steps are worth reflecting on even when nothing failed. */
const REFLECT_AFTER_STEPS = 8;
/** The run as the reflection model reads it, at most this long (head and tail kept). */
export const REFLECTION_TRANSCRIPT_CHARS = 16_000;
/** Rules shown to the reflection model. */
const MAX_RULES_SHOWN = 15;
const SNIPPET_CHARS = 300;

function clip(text: string, max: number): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`;
}

/** Words too common to say two texts are about the same thing. */
const STOPWORDS = new Set(
  "a an and are as at be by do does for from has have how i in is it its me my of on or our please so that the this to was we what when where which why with you your".split(
    " ",
  ),
);

/** The distinct terms of a text that carry meaning (no stop words, no single Latin letters). */
function contentTerms(text: string): Set<string> {
  return new Set([...tokenize(text)].filter((term) => !STOPWORDS.has(term) && !/^[a-z0-9]$/.test(term)));
}

/** At least 60 % of the task's terms (three suffice for a long task) appear in `text`. */
function sharesEnough(task: ReadonlySet<string>, text: string): boolean {
  if (task.size === 0) return false;
  const terms = contentTerms(text);
  let shared = 0;
  for (const term of task) if (terms.has(term)) shared++;
  return shared >= Math.min(3, Math.ceil(task.size * 0.6));
}

/** A filter passing the first hit of each distinct text. */
function uniqueText(): (hit: { item: { text: string } }) => boolean {
  const seen = new Set<string>();
  return (hit) => {
    const key = hit.item.text.trim().toLowerCase();
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  };
}

/** How well an experience's condition (and, less, its rule) matches the task, 0..1. */
function textMatch(task: ReadonlySet<string>, experience: Experience): number {
  const condition = tokenize(experience.condition);
  const rule = tokenize(experience.rule);
  if (task.size === 0) return 0;
  let shared = 0;
  for (const term of condition) if (task.has(term)) shared++;
  // Overlap relative to the smaller side: a short condition fully present in a long task matches well.
  const overlap = condition.size === 0 ? 0 : shared / Math.min(condition.size, task.size);
  return Math.min(1, 0.8 * overlap + 0.2 * jaccard(task, rule));
}

export class Learning {
  constructor(private readonly deps: LearningDeps) {}

  /** Experiences and memories for a run of `task`; the experiences are noted as shown in it. */
  async recall(task: string, traceId: string, sessionId: string, signal?: AbortSignal): Promise<Recall> {
    const { store, projectKey, settings } = this.deps;
    const taskTerms = contentTerms(task);
    const experiences =
      settings.maxExperiences > 0
        ? await this.matchingExperiences(task, settings.maxExperiences, signal)
        : [];
    const memories =
      settings.maxMemories > 0
        ? (
            await searchMemory({
              store,
              query: clip(task, 500),
              projectKey,
              limit: settings.maxMemories * 2,
              ...(this.deps.embedder ? { embed: this.embedFunction() } : {}),
              ...(signal ? { signal } : {}),
            }).catch(() => ({ hits: [] as never[] }))
          ).hits
            // This session's own turns are in the history already; a hit must share enough of
            // the task's words (full-text scores are relative to the best hit, not absolute).
            .filter((hit) => hit.item.sessionId !== sessionId && sharesEnough(taskTerms, hit.item.text))
            .filter(uniqueText())
            .slice(0, settings.maxMemories)
        : [];
    const now = Date.now();
    if (experiences.length > 0) {
      await store.apply(
        experiences.map((experience) => ({
          op: "recordExperienceUse" as const,
          experienceId: experience.id,
          traceId,
          at: now,
        })),
      );
    }
    const parts: string[] = [];
    const section = experiencesSection(experiences);
    if (section) parts.push(section);
    if (memories.length > 0) {
      parts.push(
        [
          "From earlier sessions in this project (for reference; they may be out of date):",
          ...memories.map(
            (hit) =>
              `- ${new Date(hit.item.createdAt).toISOString().slice(0, 10)} ${hit.item.role ?? hit.item.kind}: ${clip(hit.item.text, SNIPPET_CHARS)}`,
          ),
        ].join("\n"),
      );
    }
    return {
      text: parts.join("\n\n"),
      experienceIds: experiences.map((experience) => experience.id),
      memoryIds: memories.map((hit) => hit.item.id),
    };
  }

  /**
   * Remembers the run, counts its outcome, and reflects when warranted. Again for the same run
   * (resumed after a kill), it stores nothing twice: the memory items' ids come from the run,
   * the outcome is counted once; `commitWith` (the caller's mark that the run was learned from)
   * is committed in one batch with the reflection's changes.
   */
  async afterRun(run: {
    /** Written in the same batch as the reflection's changes (when it reflects). */
    commitWith?: readonly WriteOp[];
    /** How that batch is written (the run's fenced writer); default the store's apply. */
    commit?: (ops: readonly WriteOp[]) => Promise<void>;
    traceId: string;
    sessionId: string;
    task: string;
    status: string;
    /** The code the run failed with, if it failed. */
    errorCode?: string;
    finalText: string;
    steps: number;
    signal?: AbortSignal;
  }): Promise<LearningReport> {
    const { store, projectKey, redact } = this.deps;
    const outcome: Outcome = run.status === "completed" ? "success" : "failure";
    // Whether the rules shown helped is unknown when the run was cut short from outside: by
    // the user, or by the provider (whose failure would also fail a reflection call, on a key
    // just rejected or a quota used up).
    const providerFailed = run.status === "failed" && isProviderErrorCode(run.errorCode ?? "");
    const judged = run.status !== "aborted" && !providerFailed;
    const now = Date.now();
    const remember = !providerFailed || (await this.modelAnswered(run));
    const items: MemoryItemInput[] = remember
      ? [
          memoryItem(projectKey, run, "user", redact(run.task), "user", now),
          ...(run.finalText.trim()
            ? [memoryItem(projectKey, run, "assistant", redact(run.finalText), "agent", now + 1)]
            : []),
        ]
      : [];
    // Ids follow from the run and the text, so a resumed run's learning stores nothing twice.
    const stored = await Promise.all(items.map((item) => store.memory.get(item.id)));
    const fresh = items.filter((_, i) => stored[i] === undefined);
    if (fresh.length > 0) await store.memory.appendItems(fresh);
    if (items.length > 0 && this.deps.embedder) await this.embedMissing("memory", run.signal);
    const outcomeCounted = judged ? await store.experiences.recordOutcome(run.traceId, outcome) : 0;
    const report: LearningReport = {
      remembered: items.length,
      outcomeCounted,
      added: [],
      agreed: [],
      edited: [],
      removed: [],
      promoted: [],
      retired: [],
      reflected: false,
    };
    // Rules that keep failing sink and retire.
    for (const use of await store.experiences.usesIn(run.traceId)) {
      const experience = await store.experiences.get(use.experienceId);
      if (
        experience &&
        experience.status !== "retired" &&
        shouldRetire(experience.successCount, experience.failureCount)
      ) {
        await store.experiences.retire(experience.id);
        report.retired.push(experience.id);
      }
    }
    if (!judged || this.deps.settings.reflect === "off") return report;
    const turns = await this.turnsOf(run);
    if (!this.worthReflecting(turns, outcome, run.steps)) return report;
    await this.reflect(run, outcome, turns, report);
    return report;
  }

  private async turnsOf(run: { sessionId: string; traceId: string }): Promise<TurnRecord[]> {
    return (await this.deps.store.turns.list(run.sessionId)).filter((turn) => turn.traceId === run.traceId);
  }

  /** The model answered at least once in the run (before the provider failed, say). */
  private async modelAnswered(run: { sessionId: string; traceId: string }): Promise<boolean> {
    return (await this.turnsOf(run)).some((turn) => turn.role === "assistant");
  }

  private worthReflecting(turns: readonly TurnRecord[], outcome: Outcome, steps: number): boolean {
    const mode = this.deps.settings.reflect;
    if (mode === "off") return false;
    if (mode === "always") return true;
    if (outcome === "failure" || steps >= REFLECT_AFTER_STEPS) return true;
    return turns.some(
      (turn) => turn.role === "toolResult" && (turn.content as { isError?: boolean }).isError === true,
    );
  }

  private async reflect(
    run: {
      traceId: string;
      task: string;
      status: string;
      signal?: AbortSignal;
      commitWith?: readonly WriteOp[];
      commit?: (ops: readonly WriteOp[]) => Promise<void>;
    },
    outcome: Outcome,
    turns: readonly TurnRecord[],
    report: LearningReport,
  ): Promise<void> {
    const { store, projectKey, redact, settings } = this.deps;
    const shown = (
      await this.matchingExperiences(run.task, MAX_RULES_SHOWN, run.signal, ["active", "candidate"])
    ).slice(0, MAX_RULES_SHOWN);
    const transcript = redact(
      keepHeadAndTail(transcriptOf(turnsToHistory([...turns])), REFLECTION_TRANSCRIPT_CHARS),
    );
    const chat = await this.deps.reflector.chat(
      {
        systemPrompt: REFLECTION_SYSTEM_PROMPT,
        messages: [
          {
            role: "user",
            content: reflectionRequest({
              task: redact(run.task),
              outcome: `${run.status} (${outcome})`,
              transcript,
              rules: shown.map((experience) => ({ condition: experience.condition, rule: experience.rule })),
            }),
            timestamp: Date.now(),
          },
        ],
        tools: [],
      },
      run.signal ? { signal: run.signal } : {},
    );
    report.reflected = true;
    report.usage = chat.usage;
    const ops = sanitiseOps(parseReflectionOps(chat.text), shown);
    const untrusted = turns.some(
      (turn) =>
        turn.role === "toolResult" && (turn.content as { toolName?: string }).toolName === "web_fetch",
    );
    const provenance: Provenance = untrusted ? "untrusted" : "agent";
    const now = Date.now();
    const evidence = (note: string): ExperienceEvidence => ({ traceId: run.traceId, outcome, note, at: now });
    const writes: WriteOp[] = [];
    const touched: Experience[] = [];
    for (const op of ops) {
      if (op.kind === "add") {
        const id = ulid(now);
        writes.push({
          op: "insertExperience",
          experience: {
            id,
            projectKey,
            scope: `project:${projectKey.slice(0, 12)}`,
            condition: redact(op.condition),
            rule: redact(op.rule),
            conditionFilter: null,
            evidence: [evidence("added by reflection")],
            confidence: 0.5,
            usageCount: 0,
            successCount: 0,
            failureCount: 0,
            votes: voteDelta(op, shown.length),
            provenance,
            status: "candidate",
            createdAt: now,
            updatedAt: now,
            lastUsedAt: null,
          },
        });
        report.added.push(id);
        continue;
      }
      const target = shown[op.index - 1]!;
      writes.push({ op: "voteExperience", id: target.id, delta: voteDelta(op, shown.length), at: now });
      if (op.kind === "remove") {
        report.removed.push(target.id);
        if (target.votes + voteDelta(op, shown.length) <= 0) {
          writes.push({ op: "updateExperience", id: target.id, patch: { status: "retired" }, at: now });
          report.retired.push(target.id);
        }
        continue;
      }
      const backing = target.evidence.some((item) => item.traceId === run.traceId)
        ? target.evidence
        : [
            ...target.evidence,
            evidence(op.kind === "edit" ? "edited by reflection" : "confirmed by reflection"),
          ];
      const patch = {
        evidence: backing,
        ...(op.kind === "edit"
          ? { rule: redact(op.rule), ...(op.condition ? { condition: redact(op.condition) } : {}) }
          : {}),
      };
      writes.push({ op: "updateExperience", id: target.id, patch, at: now });
      (op.kind === "edit" ? report.edited : report.agreed).push(target.id);
      touched.push({ ...target, evidence: backing, provenance: untrusted ? "untrusted" : target.provenance });
    }
    // A candidate becomes active once enough independent runs back it and nothing untrusted made it.
    const promote = (id: string) => {
      writes.push({ op: "updateExperience", id, patch: { status: "active" }, at: now });
      report.promoted.push(id);
    };
    for (const experience of touched) {
      const runs = new Set(experience.evidence.map((item) => item.traceId)).size;
      if (
        experience.status === "candidate" &&
        runs >= settings.minEvidence &&
        experience.provenance !== "untrusted"
      )
        promote(experience.id);
    }
    if (settings.minEvidence <= 1 && provenance !== "untrusted") for (const id of report.added) promote(id);
    // All at once: the rules change together with the caller's mark, or not at all.
    const batch = [...writes, ...(run.commitWith ?? [])];
    if (batch.length > 0) await (run.commit ? run.commit(batch) : store.apply(batch));
  }

  /** The best experiences for a task: text match (and vectors when configured), weighted by record. */
  private async matchingExperiences(
    task: string,
    limit: number,
    signal: AbortSignal | undefined,
    status: readonly ("active" | "candidate")[] = ["active"],
  ): Promise<Experience[]> {
    const { store, projectKey } = this.deps;
    const candidates = await store.experiences.list({ projectKey, status, limit: 1000 });
    if (candidates.length === 0) return [];
    const terms = tokenize(task);
    const match = new Map(candidates.map((experience) => [experience.id, textMatch(terms, experience)]));
    if (this.deps.embedder) {
      const vectors = await this.vectorMatches(task, status, signal).catch(() => new Map<string, number>());
      for (const [id, score] of vectors) match.set(id, Math.max(match.get(id) ?? 0, score));
    }
    const ranked = rankExperiences(
      candidates.map((experience) => ({ ...experience, match: match.get(experience.id) ?? 0 })),
      { limit, minMatch: 0.2 },
    );
    return ranked;
  }

  private async vectorMatches(
    task: string,
    status: readonly ("active" | "candidate")[],
    signal: AbortSignal | undefined,
  ): Promise<Map<string, number>> {
    const embedder = this.deps.embedder!;
    const { store, projectKey } = this.deps;
    // Conditions not embedded yet with this model (new rules, or a model change) are embedded first.
    await this.embedMissing("experience", signal);
    const [query] = await embedder.embed([this.deps.redact(clip(task, 2000))], signal ? { signal } : {});
    const matches = await store.experiences.vectorSearch(query!, embedder.id, {
      projectKey,
      status,
      limit: 20,
    });
    return new Map(matches.map((match) => [match.experience.id, match.score]));
  }

  /**
   * Embeds what has no vector of the current model yet (new items, or everything after a model
   * change) and records the model as the project's index identity, so vectors never mix.
   */
  private async embedMissing(
    ownerKind: "memory" | "experience",
    signal: AbortSignal | undefined,
  ): Promise<void> {
    const embedder = this.deps.embedder!;
    const { store, projectKey } = this.deps;
    const missing = await store.memory.missingEmbeddings(embedder.id, { projectKey, ownerKind, limit: 200 });
    if (missing.length === 0) return;
    const vectors = await embedder.embed(
      missing.map((owner) => this.deps.redact(owner.text)),
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

  private embedFunction() {
    const embedder = this.deps.embedder!;
    return async (text: string, signal?: AbortSignal) => {
      const [vector] = await embedder.embed([this.deps.redact(text)], signal ? { signal } : {});
      return vector!;
    };
  }
}

/** A run's turn as remembered; its id comes from the run, role and text, so it is stored once. */
function memoryItem(
  projectKey: string,
  run: { traceId: string; sessionId: string },
  role: string,
  text: string,
  provenance: Provenance,
  at: number,
): MemoryItemInput {
  return {
    id: seededUlid(ulidTimeMs(run.traceId), `${run.traceId}\u0000${role}\u0000${text}`),
    projectKey,
    sessionId: run.sessionId,
    traceId: run.traceId,
    kind: "turn",
    role,
    text,
    provenance,
    createdAt: at,
  };
}
