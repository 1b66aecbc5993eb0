// Learning across runs: before a run, the experiences whose condition, rule or retrieval keys
// match the task and the memories of earlier sessions that bear on it go into the system
// prompt's memory section (a random share of the matching rules is withheld, memory.holdout,
// so their uplift can be measured);
// after it, the task and answer are remembered, the outcome is counted for exactly the
// experiences the run was shown, and (when it hit trouble, or always if configured) the
// summary model reflects on the run and proposes rules as ExpeL's add/agree/edit/remove
// operations. A run the provider failed (a rejected key, an outage, a quota) says nothing
// about the task: it is not counted nor reflected on, and remembered only if the model
// answered in it. A rule is used only once enough independent trusted runs back it, never when
// a run that read untrusted content wrote it unless the user confirms it, and it retires when it
// keeps failing, credibly does not help (uplift), or, as a candidate, finds no backing for many
// runs. Everything stored is masked for secrets first.
import { type HistoryEntry, keepHeadAndTail, transcriptOf, turnsToHistory } from "../context/index.js";
import { isProviderErrorCode } from "../core/errors.js";
import type { LearningReport } from "../core/events.js";
import { seededUlid, ulidTimeMs } from "../core/ids.js";
import {
  broadNet,
  coverageScore,
  type ErrorMatch,
  embedMissing,
  errorExcerpt,
  estimateUplift,
  experiencesSection,
  expireCandidates,
  lessonForError,
  MIN_TEXT_MATCH,
  matchingExperiences,
  memorySection,
  parseReflectionOps,
  projectLanguages,
  quotedOrigin,
  REFLECTION_SYSTEM_PROMPT,
  type RecallFound,
  type RetrievalDeps,
  reflectionRequest,
  type ShownMemory,
  sanitiseOps,
  searchMemory,
  searchTerms,
  shouldRetire,
  upliftSaysRetire,
  weightedTerms,
} from "../memory/index.js";
import type { EmbeddingProvider, Provider } from "../providers/index.js";
import type {
  Experience,
  MemoryItemInput,
  MemoryItemRecord,
  Outcome,
  Provenance,
  Store,
  TurnRecord,
  WriteOp,
} from "../store/index.js";
import { reflectionWrites } from "./reflection-writes.js";

export interface LearningSettings {
  reflect: "auto" | "always" | "off";
  minEvidence: number;
  maxExperiences: number;
  maxMemories: number;
  /** The share of matching active rules withheld from a run, to measure their uplift (0 turns it off). */
  holdout?: number;
  /** Runs after which a candidate rule that gained no evidence expires. */
  candidateRuns?: number;
  /** The languages the project's tasks are written in, for the keys reflection writes. */
  languages?: readonly string[];
}

export const DEFAULT_HOLDOUT = 0.1;
export const DEFAULT_CANDIDATE_RUNS = 20;

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
  /** Uniform in [0, 1): decides which matching rules a run is not shown (holdout). */
  random?: () => number;
}

/** What a run was given from memory. */
export interface Recall {
  /** The memory section of the system prompt ("" for none). */
  text: string;
  experienceIds: string[];
  memoryIds: string[];
  /** Rules the run matched but was not shown (holdout), counted apart. */
  withheldIds: string[];
  /** Set when a memory shown was written by a run that had read untrusted content: what it was. */
  untrustedOrigin?: string;
}

/** Runs that took this many steps are worth reflecting on even when nothing failed. */
const REFLECT_AFTER_STEPS = 8;
/** The run as the reflection model reads it, at most this long (head and tail kept). */
export const REFLECTION_TRANSCRIPT_CHARS = 16_000;
/** Rules shown to the reflection model. */
const MAX_RULES_SHOWN = 15;
/** The failed calls of a run whose outputs its reflection's rules are also looked up by. */
const ERRORS_SEARCHED = 3;
const SNIPPET_CHARS = 300;

function clip(text: string, max: number): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`;
}

/** A memory as runs are shown it: clipped, with where it came from. */
function shownMemory(item: MemoryItemRecord): ShownMemory {
  return {
    createdAt: item.createdAt,
    role: item.role ?? item.kind,
    text: clip(item.text, SNIPPET_CHARS),
    provenance: item.provenance,
    ...(item.traceId ? { traceId: item.traceId } : {}),
  };
}

/** A memory from an earlier session is shown when it covers this much of the task's weight. */
const MIN_MEMORY_MATCH = MIN_TEXT_MATCH;
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

export class Learning {
  constructor(private readonly deps: LearningDeps) {}

  private get retrieval(): RetrievalDeps {
    const { store, projectKey, redact, embedder } = this.deps;
    return { store, projectKey, redact, ...(embedder ? { embedder } : {}) };
  }

  /**
   * Experiences and memories for a run of `task`; the experiences are noted as shown in it,
   * those held out as withheld.
   */
  async recall(task: string, traceId: string, sessionId: string, signal?: AbortSignal): Promise<Recall> {
    const { store, projectKey, settings } = this.deps;
    // Cut only when a memory needs comparing (cutting Chinese loads the dictionary).
    let cut: ReturnType<typeof weightedTerms> | undefined;
    const taskTerms = () => {
      cut ??= weightedTerms(task);
      return cut;
    };
    const matched =
      settings.maxExperiences > 0
        ? (await matchingExperiences(this.retrieval, task, settings.maxExperiences, signal)).map(
            (hit) => hit.experience,
          )
        : [];
    const holdout = settings.holdout ?? DEFAULT_HOLDOUT;
    const random = this.deps.random ?? Math.random;
    const withheld = holdout > 0 ? matched.filter(() => random() < holdout) : [];
    const experiences = matched.filter((experience) => !withheld.includes(experience));
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
            .filter(
              (hit) =>
                hit.item.sessionId !== sessionId &&
                coverageScore(taskTerms(), new Set(searchTerms(hit.item.text))) >= MIN_MEMORY_MATCH,
            )
            .filter(uniqueText())
            .slice(0, settings.maxMemories)
        : [];
    await noteUses(store, experiences, traceId);
    await noteUses(store, withheld, traceId, { withheld: true });
    const parts: string[] = [];
    const section = experiencesSection(experiences);
    if (section) parts.push(section);
    const shown = memories.map((hit) => shownMemory(hit.item));
    const memoryText = memorySection("From earlier sessions in this project", shown);
    if (memoryText) parts.push(memoryText);
    const untrustedOrigin = quotedOrigin(shown);
    return {
      ...(untrustedOrigin ? { untrustedOrigin } : {}),
      text: parts.join("\n\n"),
      experienceIds: experiences.map((experience) => experience.id),
      memoryIds: memories.map((hit) => hit.item.id),
      withheldIds: withheld.map((experience) => experience.id),
    };
  }

  /**
   * The lesson the output of a failed call in run `traceId` calls for (error-match.ts), not one
   * of `exclude` (shown already, or withheld); counted as shown in the run.
   */
  async atError(
    output: string,
    traceId: string,
    exclude: ReadonlySet<string>,
  ): Promise<ErrorMatch | undefined> {
    const { store, projectKey, settings } = this.deps;
    if (settings.maxExperiences <= 0) return undefined;
    const found = await lessonForError(store.experiences, projectKey, this.deps.redact(output), exclude);
    if (found) await noteUses(store, [found.experience], traceId);
    return found;
  }

  /**
   * What the `recall` tool finds for the model's own words in run `traceId`: rules (active
   * ones, past the text threshold) and memories of earlier sessions. The rules count as shown
   * in the run, for its outcome.
   */
  async lookUp(query: string, traceId: string, signal?: AbortSignal): Promise<RecallFound> {
    const { store, projectKey } = this.deps;
    const hits = await matchingExperiences(this.retrieval, query, 5, signal);
    const experiences = hits.map((hit) => hit.experience);
    await noteUses(store, experiences, traceId);
    const queryTerms = weightedTerms(query);
    const memories = (
      await searchMemory({
        store,
        query: clip(query, 500),
        projectKey,
        limit: 10,
        ...(this.deps.embedder ? { embed: this.embedFunction() } : {}),
        ...(signal ? { signal } : {}),
      })
    ).hits
      .filter((hit) => hit.item.traceId !== traceId)
      .filter((hit) => coverageScore(queryTerms, new Set(searchTerms(hit.item.text))) >= MIN_MEMORY_MATCH)
      .filter(uniqueText())
      .slice(0, 5);
    return {
      experiences,
      memories: memories.map((hit) => ({ id: hit.item.id, ...shownMemory(hit.item) })),
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
    /**
     * The run read untrusted content: its answer is remembered as untrusted (shown to later
     * runs as quoted data) and its reflection only proposes candidates.
     */
    untrusted?: boolean;
    /** The task itself is untrusted (a chat message from someone other than the owner): remembered so. */
    untrustedTask?: boolean;
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
          memoryItem(
            projectKey,
            run,
            "user",
            redact(run.task),
            run.untrustedTask ? "untrusted" : "user",
            now,
          ),
          ...(run.finalText.trim()
            ? [
                memoryItem(
                  projectKey,
                  run,
                  "assistant",
                  redact(run.finalText),
                  run.untrusted ? "untrusted" : "agent",
                  now + 1,
                ),
              ]
            : []),
        ]
      : [];
    // Ids follow from the run and the text, so a resumed run's learning stores nothing twice.
    const stored = await Promise.all(items.map((item) => store.memory.get(item.id)));
    const fresh = items.filter((_, i) => stored[i] === undefined);
    if (fresh.length > 0) await store.memory.appendItems(fresh);
    if (items.length > 0 && this.deps.embedder) await embedMissing(this.retrieval, "memory", run.signal);
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
      ...(run.untrusted ? { untrusted: true } : {}),
    };
    // Rules that keep failing sink and retire, and so do rules that credibly do not help.
    for (const use of await store.experiences.usesIn(run.traceId)) {
      const experience = await store.experiences.get(use.experienceId);
      if (
        experience &&
        experience.status !== "retired" &&
        (shouldRetire(experience.successCount, experience.failureCount) ||
          upliftSaysRetire(estimateUplift(experience)))
      ) {
        await store.experiences.retire(experience.id);
        report.retired.push(experience.id);
      }
    }
    if (!judged) return report;
    report.retired.push(
      ...(await expireCandidates(
        store,
        this.deps.projectKey,
        this.deps.settings.candidateRuns ?? DEFAULT_CANDIDATE_RUNS,
      )),
    );
    if (this.deps.settings.reflect === "off") return report;
    const turns = await this.turnsOf(run);
    if (!this.worthReflecting(turns, outcome, run.steps)) return report;
    await this.reflect(run, outcome, turns, report, run.untrusted === true);
    // The rules just written are cut for the text index now, not before the next run's first call.
    await store.experiences.reindex();
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
    untrusted: boolean,
  ): Promise<void> {
    const { store, projectKey, redact, settings } = this.deps;
    const shown = await broadNet(this.retrieval, run.task, MAX_RULES_SHOWN, run.signal);
    // Rules the run's errors meet though its task did not: a trouble met again in other words
    // is one a reflection can confirm, adding the words this task used to the rule's keys.
    const history = turnsToHistory([...turns]);
    const errors = errorOutputs(history);
    if (errors !== "" && shown.length < MAX_RULES_SHOWN) {
      const byErrors = await broadNet(this.retrieval, errors, MAX_RULES_SHOWN, run.signal);
      for (const experience of byErrors) {
        if (shown.length >= MAX_RULES_SHOWN) break;
        if (!shown.some((known) => known.id === experience.id)) shown.push(experience);
      }
    }
    const languages = await projectLanguages(store, projectKey, run.task, settings.languages);
    const transcript = redact(keepHeadAndTail(transcriptOf(history), REFLECTION_TRANSCRIPT_CHARS));
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
              languages,
              rules: shown.map((experience) => ({
                condition: experience.condition,
                rule: experience.rule,
                keys: experience.keys,
              })),
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
    const writes = reflectionWrites(ops, shown, report, {
      traceId: run.traceId,
      outcome,
      untrusted,
      projectKey,
      redact,
      minEvidence: settings.minEvidence,
    });
    // All at once: the rules change together with the caller's mark, or not at all.
    const batch = [...writes, ...(run.commitWith ?? [])];
    if (batch.length > 0) await (run.commit ? run.commit(batch) : store.apply(batch));
  }

  private embedFunction() {
    const embedder = this.deps.embedder!;
    return async (text: string, signal?: AbortSignal) => {
      const [vector] = await embedder.embed([this.deps.redact(text)], signal ? { signal } : {});
      return vector!;
    };
  }
}

/** The last failed calls' outputs of a run, as an error lookup searches them. */
function errorOutputs(history: readonly HistoryEntry[]): string {
  const texts = history
    .flatMap(({ message }) => (message.role === "toolResult" && message.isError ? [message] : []))
    .slice(-ERRORS_SEARCHED)
    .map((message) => message.content.map((block) => (block.type === "text" ? block.text : "")).join("\n"));
  return errorExcerpt(texts.join("\n"));
}

/** Notes that a run was shown (or, withheld, matched but not shown) these experiences. */
async function noteUses(
  store: Store,
  experiences: readonly Experience[],
  traceId: string,
  options: { withheld?: boolean } = {},
): Promise<void> {
  if (experiences.length === 0) return;
  const at = Date.now();
  await store.apply(
    experiences.map((experience) => ({
      op: "recordExperienceUse" as const,
      experienceId: experience.id,
      traceId,
      at,
      ...(options.withheld ? { withheld: true } : {}),
    })),
  );
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
