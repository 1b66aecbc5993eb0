// Approvals and questions of a run that no terminal serves: each is a prompt in the store (so
// the `reson serve` that a client talks to may be another process than the worker running the
// run), announced as an event of the run, answered by POST, and denied (or left unanswered)
// when nobody answers in time. The run waits at most that long, and stops waiting on abort.
import type { Agent } from "../agent/index.js";
import { ResonError } from "../core/errors.js";
import type { AnsweredBy } from "../core/events.js";
import { ulid } from "../core/ids.js";
import type { PermissionAnswer, PermissionPrompt } from "../permissions/index.js";
import type { LeaseFence, RunPromptRecord, Store } from "../store/index.js";
import type { AskHuman } from "../tools/index.js";

/** How the waiting side learns of an answer made in another process where nothing notifies. */
const POLL_MS = 250;

export interface PromptChannelOptions {
  store: Store;
  /** The run served (its sub-agents never ask). */
  runId: string;
  /** The run's agent, once made: events are emitted into its run. */
  agent: () => Agent | undefined;
  /** The run's lease: prompts are opened under it. */
  fence: () => LeaseFence | undefined;
  /** Unanswered for this long, a permission is denied and a question left unanswered. */
  timeoutMs: number;
  signal: AbortSignal;
}

export interface PromptChannel {
  promptUser(prompt: PermissionPrompt): Promise<PermissionAnswer>;
  askHuman: AskHuman;
}

/** What a client POSTs to answer an approval. */
export interface ApprovalAnswer {
  decision: "allow_once" | "allow_session" | "deny";
  note?: string;
}

/** What the store keeps as an approval's answer: the decision and who made it. */
export interface StoredApproval extends ApprovalAnswer {
  answeredBy?: AnsweredBy;
}

export function storePromptChannel(options: PromptChannelOptions): PromptChannel {
  const { store } = options;
  const redact = (text: string) => options.agent()?.redact(text) ?? text;
  const mask = (value: unknown): unknown => JSON.parse(redact(JSON.stringify(value ?? null)));

  async function open(
    runId: string,
    kind: "permission" | "question",
    payload: { toolCallId: string; [field: string]: unknown },
  ) {
    // A run resumed after a crash asks again for the same call: the prompt it opened before is
    // the one it waits on, still pending or answered while no process ran the run (a button
    // pressed in a chat), so an answer given in between is neither lost nor asked for twice.
    // The same call is the same id asking about the same thing: a provider that numbers its
    // calls per reply ("call_0" at every step) would otherwise have a later call, whatever it
    // runs, taken as already answered by the first one's "allow once". An answer the run acted
    // on is marked in the store (`use`), so it decides one call once, whichever process reads it.
    const earlier = (await store.prompts.listOfRun(runId)).findLast(
      (p) =>
        p.kind === kind &&
        p.usedAt === null &&
        sameCall(p.payload, payload) &&
        (p.status === "pending" || p.status === "answered"),
    );
    if (earlier) return earlier;
    const id = ulid();
    const fence = options.fence();
    const record = await store.prompts.open(
      { id, traceId: runId, kind, payload, timeoutMs: options.timeoutMs },
      fence ? { fence } : {},
    );
    return record;
  }

  return {
    async promptUser(prompt) {
      const payload = {
        toolCallId: prompt.toolCallId,
        tool: prompt.tool,
        arguments: mask(prompt.arguments) as Record<string, unknown>,
        reason: prompt.decision.reason,
        ...(prompt.decision.rule ? { rule: prompt.decision.rule.text } : {}),
        ...(prompt.decision.untrustedHold ? { untrustedHold: prompt.decision.untrustedHold } : {}),
        ...(prompt.session ? { session: prompt.session } : {}),
        ...(prompt.change ? { change: mask(prompt.change) } : {}),
      };
      const record = await open(prompt.runId, "permission", payload);
      options.agent()?.emitInRun(prompt.runId, {
        type: "permission_request",
        promptId: record.id,
        toolCallId: prompt.toolCallId,
        tool: prompt.tool,
        arguments: payload.arguments,
        reason: payload.rule ? `${payload.reason} (${payload.rule})` : payload.reason,
        canAllowForSession: prompt.session !== undefined,
        expiresAt: record.expiresAt ?? Date.now() + options.timeoutMs,
      });
      const answer = approvalOf(await waitForUse(store, record, options.signal));
      options.agent()?.emitInRun(prompt.runId, {
        type: "permission_decision",
        promptId: record.id,
        toolCallId: prompt.toolCallId,
        decision: answer?.decision ?? "deny",
        ...(answer?.note ? { note: answer.note } : {}),
        by: answer ? "user" : "timeout",
        ...(answer?.answeredBy ? { answeredBy: answer.answeredBy } : {}),
      });
      if (!answer) {
        return {
          kind: "deny",
          note: `nobody answered within ${Math.round(options.timeoutMs / 1000)} s; decide without this call or ask again later`,
        };
      }
      if (answer.decision === "deny") return { kind: "deny", ...(answer.note ? { note: answer.note } : {}) };
      // "For the session" only where the gate offered it; else it allows this call once.
      if (answer.decision === "allow_session" && prompt.session) return { kind: "allow_session" };
      return { kind: "allow_once" };
    },

    async askHuman(question) {
      // The loop has announced the question (human_question); its id for the answer is the call's.
      // Sub-agents never ask (they run unattended): a question is the run's own.
      const runId = options.runId;
      const record = await open(runId, "question", {
        toolCallId: question.toolCallId,
        question: redact(question.question),
        ...(question.choices ? { choices: question.choices.map(redact) } : {}),
      });
      const answered = await waitForUse(store, record, options.signal);
      const text = answerText(answered);
      const answeredBy = answeredByOf(answered);
      options.agent()?.emitInRun(runId, {
        type: "human_answer",
        promptId: record.id,
        toolCallId: question.toolCallId,
        ...(text !== undefined ? { answer: redact(text) } : {}),
        by: text !== undefined ? "user" : "timeout",
        ...(answeredBy ? { answeredBy } : {}),
      });
      return text === undefined ? undefined : { answer: text };
    },
  };
}

/** Whether a stored prompt's payload asks about the very call `payload` does (id, tool, arguments, question). */
function sameCall(stored: unknown, payload: { toolCallId: string; [field: string]: unknown }): boolean {
  const earlier = (stored ?? {}) as Record<string, unknown>;
  return (["toolCallId", "tool", "arguments", "question"] as const).every(
    (field) => JSON.stringify(earlier[field]) === JSON.stringify(payload[field]),
  );
}

function approvalOf(record: RunPromptRecord | undefined): StoredApproval | undefined {
  if (record?.status !== "answered") return undefined;
  const answer = record.answer as Partial<ApprovalAnswer> | null;
  if (
    answer?.decision !== "allow_once" &&
    answer?.decision !== "allow_session" &&
    answer?.decision !== "deny"
  )
    return undefined;
  const answeredBy = answeredByOf(record);
  return {
    decision: answer.decision,
    ...(typeof answer.note === "string" ? { note: answer.note } : {}),
    ...(answeredBy ? { answeredBy } : {}),
  };
}

/** Who answered, as stored with the answer (absent in answers stored before it was kept). */
export function answeredByOf(record: RunPromptRecord | undefined): AnsweredBy | undefined {
  if (record?.status !== "answered") return undefined;
  const by = (record.answer as { answeredBy?: Partial<AnsweredBy> } | null)?.answeredBy;
  if (typeof by?.channel !== "string") return undefined;
  return {
    channel: by.channel,
    ...(typeof by.senderId === "string" ? { senderId: by.senderId } : {}),
    ...(typeof by.displayName === "string" ? { displayName: by.displayName } : {}),
  };
}

function answerText(record: RunPromptRecord | undefined): string | undefined {
  if (record?.status !== "answered") return undefined;
  const answer = record.answer as { answer?: unknown } | null;
  return typeof answer?.answer === "string" ? answer.answer : undefined;
}

/**
 * The prompt once answered or expired, marked as acted on. When another process marked it first
 * (it ran the same run meanwhile), its answer was that process's to act on: undefined, as if
 * nobody had answered.
 */
async function waitForUse(
  store: Store,
  prompt: RunPromptRecord,
  signal: AbortSignal,
): Promise<RunPromptRecord | undefined> {
  const settled = await waitForAnswer(store, prompt, signal);
  return (await store.prompts.use(prompt.id)) ? settled : undefined;
}

/**
 * The prompt once answered or expired (expiring it when its time is up); undefined on abort.
 * Woken by the store's notifications where it has them, and by polling where it has not.
 */
async function waitForAnswer(
  store: Store,
  prompt: RunPromptRecord,
  signal: AbortSignal,
): Promise<RunPromptRecord | undefined> {
  let wake: (() => void) | undefined;
  const unsubscribe = await store.prompts
    .subscribe((_traceId, promptId) => {
      if (promptId === prompt.id) wake?.();
    })
    .catch(() => undefined);
  try {
    for (;;) {
      if (signal.aborted) throw signal.reason ?? new ResonError("aborted", "The run was stopped.");
      const current = await store.prompts.get(prompt.id);
      // Past its time a prompt reads as expired (by the database's clock).
      if (current?.status !== "pending") return current;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, POLL_MS);
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
        signal.addEventListener("abort", () => wake?.(), { once: true });
      });
      wake = undefined;
    }
  } finally {
    await unsubscribe?.().catch(() => {});
  }
}
