// The records a new run starts with: its session (when the run opens one) and its trace, both
// saying which provider and model ran it; usage and steps count from zero.
import { emptyUsage } from "../core/usage.js";
import type { ModelInfo } from "../providers/index.js";
import type { SessionRecord, TraceRecord } from "../store/index.js";
import { titleOf } from "./run-lookup.js";

export function newSessionRecord(input: {
  id: string;
  projectKey: string;
  workspace: string;
  /** The first task: the session's title. */
  task: string;
  model: ModelInfo;
  now: number;
}): SessionRecord {
  const { model, now } = input;
  return {
    id: input.id,
    projectKey: input.projectKey,
    workspace: input.workspace,
    title: titleOf(input.task, input.workspace),
    status: "active",
    settings: {
      provider: model.provider,
      model: model.id,
      ...(model.baseUrl ? { baseUrl: model.baseUrl } : {}),
    },
    usage: emptyUsage(),
    lastTraceId: null,
    createdAt: now,
    updatedAt: now,
  };
}

/** A top-level run's trace (a sub-agent's sets parentTraceId). */
export function newTraceRecord(input: {
  id: string;
  sessionId: string;
  task: string;
  preset: string | null;
  model: ModelInfo;
  now: number;
}): TraceRecord {
  const { model, now } = input;
  return {
    id: input.id,
    sessionId: input.sessionId,
    parentTraceId: null,
    task: input.task,
    preset: input.preset,
    provider: model.provider,
    model: model.id,
    baseUrl: model.baseUrl || null,
    status: "running",
    usage: emptyUsage(),
    steps: 0,
    error: null,
    startedAt: now,
    endedAt: null,
    updatedAt: now,
  };
}
