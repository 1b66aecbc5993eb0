// The session a new run joins: a new one, the project's latest, or one named by id; and what an
// earlier session brings with it: its history, and the untrusted content its runs read (the
// history this run sees quotes it, so the run starts untrusted).

import type { HistoryEntry } from "../context/index.js";
import { ResonError } from "../core/errors.js";
import type { UntrustedSource } from "../core/events.js";
import { ulid } from "../core/ids.js";
import type { ModelInfo } from "../providers/index.js";
import type { SessionRecord, Store } from "../store/index.js";
import { assertSessionFree } from "./run-lookup.js";
import { newSessionRecord } from "./run-records.js";
import type { InheritedUntrust } from "./run-trust.js";
import { sessionHistory } from "./session-history.js";

/** The session a run joins and what it carries over from the session's earlier runs. */
export interface JoinedSession {
  session: SessionRecord;
  isNew: boolean;
  history: HistoryEntry[];
  inherited: InheritedUntrust | undefined;
}

/** Which session a run of `task` joins, and what a new session is made of. */
export interface SessionChoice {
  /** "new", "latest" or a session id. */
  choice: string;
  task: string;
  now: number;
  newId?: string;
  projectKey: string;
  workspaceRoot: string;
  model: ModelInfo;
}

/**
 * The session a run joins, checked free of other runs when it is an earlier one. Without a
 * store every run opens a new session.
 */
export async function joinSession(
  store: Store | undefined,
  input: SessionChoice & {
    /** The task came from someone other than the owner (a chat message). */
    untrustedTask?: UntrustedSource;
  },
): Promise<JoinedSession> {
  const { session, isNew } = await sessionFor(store, input);
  if (!isNew && store) await assertSessionFree(store, session);
  const history = isNew || !store ? [] : await sessionHistory(store, session);
  // What an earlier run of the session read is in the history this run sees: it stays untrusted.
  const sessionSources = isNew || !store ? [] : await sessionUntrust(store, session);
  const inherited: InheritedUntrust | undefined = input.untrustedTask
    ? { sources: [input.untrustedTask, ...sessionSources], via: "message" }
    : sessionSources.length > 0
      ? { sources: sessionSources, via: "session" }
      : undefined;
  return { session, isNew, history, inherited };
}

async function sessionFor(
  store: Store | undefined,
  input: SessionChoice,
): Promise<{ session: SessionRecord; isNew: boolean }> {
  const { choice, now } = input;
  if (store && choice === "latest") {
    const latest = await store.sessions.latest(input.projectKey);
    if (latest) return { session: latest, isNew: false };
  } else if (store && choice !== "new") {
    const found = await store.resolveId(choice);
    if (found.kind !== "session") throw new ResonError("usage_error", `${choice} is a run, not a session.`);
    return { session: found.session, isNew: false };
  }
  const session = newSessionRecord({
    id: input.newId ?? ulid(now),
    projectKey: input.projectKey,
    workspace: input.workspaceRoot,
    task: input.task,
    model: input.model,
    now,
  });
  return { session, isNew: true };
}

/** The reads that made a session untrusted: those its newest top-level run kept (inherited ones included). */
async function sessionUntrust(store: Store, session: SessionRecord): Promise<UntrustedSource[]> {
  if (!session.lastTraceId) return [];
  const checkpoint = await store.checkpoints.get(session.lastTraceId);
  return (checkpoint?.state as { untrusted?: UntrustedSource[] } | undefined)?.untrusted ?? [];
}
