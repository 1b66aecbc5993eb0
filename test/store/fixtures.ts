// Records for store tests: valid by default, any field overridable, ids fresh ULIDs.
import { ulid } from "../../src/core/ids.js";
import { emptyUsage } from "../../src/core/usage.js";
import type {
  ArtifactRecord,
  ExperienceRecord,
  MemoryItemInput,
  SessionRecord,
  StepRecord,
  TraceRecord,
  TurnRecord,
} from "../../src/store/index.js";

export const PROJECT = "a".repeat(64);
export const OTHER_PROJECT = "b".repeat(64);
/** A fixed "now" for records, well after the epoch so gc cutoffs can sit on either side. */
export const T0 = Date.UTC(2026, 0, 1);

export function session(overrides: Partial<SessionRecord> = {}): SessionRecord {
  return {
    id: ulid(),
    projectKey: PROJECT,
    workspace: "/work/project",
    title: "fix the flaky test",
    status: "active",
    settings: { provider: "openai", model: "gpt-test" },
    usage: emptyUsage(),
    lastTraceId: null,
    createdAt: T0,
    updatedAt: T0,
    ...overrides,
  };
}

export function turn(sessionId: string, seq: number, overrides: Partial<TurnRecord> = {}): TurnRecord {
  return {
    id: ulid(),
    sessionId,
    seq,
    role: seq === 0 ? "user" : "assistant",
    content: { role: seq === 0 ? "user" : "assistant", content: `message ${seq}`, timestamp: T0 + seq },
    envelope: null,
    traceId: null,
    step: seq,
    createdAt: T0 + seq,
    ...overrides,
  };
}

export function trace(sessionId: string, overrides: Partial<TraceRecord> = {}): TraceRecord {
  return {
    id: ulid(),
    sessionId,
    parentTraceId: null,
    task: "fix the flaky test",
    preset: null,
    provider: "openai",
    model: "gpt-test",
    baseUrl: null,
    status: "running",
    usage: emptyUsage(),
    steps: 0,
    error: null,
    startedAt: T0,
    endedAt: null,
    updatedAt: T0,
    ...overrides,
  };
}

export function step(traceId: string, seq: number, overrides: Partial<StepRecord> = {}): StepRecord {
  return {
    id: ulid(),
    traceId,
    parentId: null,
    seq,
    kind: "model_call",
    status: "done",
    data: { message: { role: "assistant", content: [{ type: "text", text: `step ${seq}` }] } },
    createdAt: T0 + seq,
    updatedAt: T0 + seq,
    ...overrides,
  };
}

export function artifact(traceId: string, overrides: Partial<ArtifactRecord> = {}): ArtifactRecord {
  const content = overrides.content ?? Array.from({ length: 5 }, (_, i) => `output line ${i + 1}`).join("\n");
  return {
    id: ulid(),
    traceId,
    toolCallId: "call-1",
    name: "execute_command",
    createdAt: T0,
    ...overrides,
    content,
    chars: overrides.chars ?? content.length,
  };
}

export function memoryItem(overrides: Partial<MemoryItemInput> = {}): MemoryItemInput {
  return {
    id: ulid(),
    projectKey: PROJECT,
    sessionId: null,
    traceId: null,
    kind: "turn",
    role: "user",
    text: "remember this",
    provenance: "user",
    createdAt: T0,
    ...overrides,
  };
}

export function experience(overrides: Partial<ExperienceRecord> = {}): ExperienceRecord {
  return {
    id: ulid(),
    projectKey: PROJECT,
    scope: "global",
    condition: "the test suite needs a database",
    rule: "start PostgreSQL with test/store/postgres-server.ts before running it.",
    keys: [],
    conditionFilter: null,
    evidence: [{ traceId: ulid(), outcome: "success", note: "worked first time", at: T0 }],
    confidence: 0.5,
    usageCount: 0,
    successCount: 0,
    failureCount: 0,
    holdoutSuccessCount: 0,
    holdoutFailureCount: 0,
    votes: 2,
    provenance: "agent",
    status: "candidate",
    createdAt: T0,
    updatedAt: T0,
    lastUsedAt: null,
    ...overrides,
  };
}

/** A Float32Array of the given values. */
export function vec(...values: number[]): Float32Array {
  return Float32Array.from(values);
}
