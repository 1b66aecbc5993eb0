// The ReAct loop: a state machine of four phases per step,
//   prepare -> call_provider -> dispatch_tools -> finalize,
// one step per model call. Every transition is an event; the whole control flow is here.

import { type HistoryEntry, renderHistory } from "../context/index.js";
import { ResonError, serializeError, toResonError } from "../core/errors.js";
import type { EventBus, RunStatus, StopReason } from "../core/events.js";
import { addUsage, emptyUsage, type Usage } from "../core/usage.js";
import type { ChatRequest, ChatResult, Provider, ToolResultMessage } from "../providers/index.js";
import { historyText, type ToolCallRequest, type ToolRegistry, type ToolResult } from "../tools/index.js";
import type { Workspace } from "../workspace/index.js";
import { CircuitBreaker } from "./circuit-breaker.js";
import type { AgentHooks, ToolCallInfo } from "./hooks.js";
import type { LoopLimits, RunResult } from "./types.js";

export interface LoopDeps {
  runId: string;
  task: string;
  systemPrompt: string;
  provider: Provider;
  tools: ToolRegistry;
  workspace: Workspace;
  hooks: AgentHooks[];
  limits: LoopLimits;
  bus: EventBus;
  signal: AbortSignal;
}

interface StepOutcome {
  chat: ChatResult;
  results: ToolResult[];
}

class RunState {
  step = 0;
  usage: Usage = emptyUsage();
  lastText = "";
  readonly history: HistoryEntry[] = [];
  readonly startedAt = Date.now();

  constructor(readonly deps: LoopDeps) {}

  emit<T extends { type: string }>(event: T): void {
    this.deps.bus.emit({ ...event, runId: this.deps.runId, step: this.step, ts: Date.now() } as never);
  }
}

export async function runLoop(deps: LoopDeps): Promise<RunResult> {
  const state = new RunState(deps);
  const breaker = new CircuitBreaker(deps.limits.circuitBreakerThreshold);
  state.history.push({ step: 0, message: { role: "user", content: deps.task, timestamp: Date.now() } });

  try {
    for (;;) {
      if (deps.signal.aborted) return finish(state, "aborted", abortedError(deps.signal));
      if (state.step >= deps.limits.maxIterations) {
        return finish(state, "failed", maxIterationsError(deps.limits.maxIterations));
      }
      state.step++;
      state.emit({ type: "step_start" });

      state.emit({ type: "phase", phase: "prepare" });
      const request = await prepare(state);

      state.emit({ type: "phase", phase: "call_provider" });
      const chat = await callProvider(state, request);

      let results: ToolResult[] = [];
      if (chat.toolCalls.length > 0) {
        state.emit({ type: "phase", phase: "dispatch_tools" });
        results = await dispatchTools(state, chat);
      }

      state.emit({ type: "phase", phase: "finalize" });
      const done = finalize(state, breaker, { chat, results });
      if (done) return finish(state, "completed");
      if (deps.signal.aborted) return finish(state, "aborted", abortedError(deps.signal));
      if (breaker.open) return finish(state, "failed", circuitOpenError(breaker));
    }
  } catch (error) {
    const failure = toResonError(error);
    if (failure.code === "aborted" || deps.signal.aborted) return finish(state, "aborted", failure);
    return finish(state, "failed", failure);
  }
}

async function prepare(state: RunState): Promise<ChatRequest> {
  const { deps } = state;
  let request: ChatRequest = {
    systemPrompt: deps.systemPrompt,
    messages: renderHistory(state.history, state.step),
    tools: deps.tools.specs(),
  };
  for (const hooks of deps.hooks) {
    if (hooks.transformContext) request = await hooks.transformContext(request, hookInfo(state));
  }
  return request;
}

async function callProvider(state: RunState, request: ChatRequest): Promise<ChatResult> {
  const { deps } = state;
  const chat = await deps.provider.chat(request, {
    signal: deps.signal,
    onEvent: (event) => {
      if (event.type === "text_delta") state.emit({ type: "text_delta", delta: event.delta });
      else if (event.type === "thinking_delta") state.emit({ type: "thinking_delta", delta: event.delta });
      else {
        const { notice } = event;
        state.emit({
          type: "provider_retry",
          attempt: notice.attempt,
          maxAttempts: notice.maxAttempts,
          delayMs: notice.delayMs,
          error: serializeError(notice.error),
        });
      }
    },
  });
  state.usage = addUsage(state.usage, chat.usage);
  if (chat.text) state.lastText = chat.text;
  return chat;
}

/**
 * Runs the step's tool calls: consecutive read-only calls together in parallel, any other
 * call on its own, so a write is never reordered against the reads around it. Results come
 * back in the model's order.
 */
async function dispatchTools(state: RunState, chat: ChatResult): Promise<ToolResult[]> {
  const calls: ToolCallRequest[] = chat.toolCalls.map((c) => ({
    id: c.id,
    name: c.name,
    arguments: c.arguments,
  }));
  const results: ToolResult[] = new Array(calls.length);
  let i = 0;
  while (i < calls.length) {
    const batch = [i];
    if (isReadOnly(state, calls[i]!)) {
      while (i + batch.length < calls.length && isReadOnly(state, calls[i + batch.length]!)) {
        batch.push(i + batch.length);
      }
    }
    await Promise.all(
      batch.map(async (index) => {
        results[index] = await runToolCall(state, calls[index]!);
      }),
    );
    i += batch.length;
  }
  return results;
}

function isReadOnly(state: RunState, call: ToolCallRequest): boolean {
  return state.deps.tools.get(call.name)?.readOnly === true;
}

async function runToolCall(state: RunState, call: ToolCallRequest): Promise<ToolResult> {
  const { deps } = state;
  state.emit({ type: "tool_call", toolCallId: call.id, name: call.name, arguments: call.arguments });
  const info: ToolCallInfo = { ...hookInfo(state), tool: deps.tools.get(call.name) };
  const startedAt = Date.now();

  let effective = call;
  let result: ToolResult | undefined;
  for (const hooks of deps.hooks) {
    if (!hooks.beforeToolCall) continue;
    const decision = await hooks.beforeToolCall(effective, info);
    if (!decision || decision.action === "allow") continue;
    if (decision.action === "deny") {
      result = deniedResult(call.name, decision.reason, Date.now() - startedAt);
      break;
    }
    effective = { ...effective, arguments: decision.arguments };
  }

  result ??= await deps.tools.execute(effective, {
    workspace: deps.workspace,
    signal: deps.signal,
    runId: deps.runId,
    toolCallId: call.id,
  });
  for (const hooks of deps.hooks) {
    if (hooks.afterToolCall) result = (await hooks.afterToolCall(effective, result, info)) ?? result;
  }

  state.emit({
    type: "tool_result",
    toolCallId: call.id,
    name: call.name,
    ok: result.ok,
    content: result.content,
    durationMs: result.meta.durationMs,
    truncated: result.meta.truncated,
    ...(result.error ? { error: result.error } : {}),
  });
  return result;
}

/** Records the step; returns true when the model gave its final answer. */
function finalize(state: RunState, breaker: CircuitBreaker, outcome: StepOutcome): boolean {
  const { chat, results } = outcome;
  state.history.push({ step: state.step, message: chat.message });
  chat.toolCalls.forEach((call, index) => {
    const result = results[index]!;
    const message: ToolResultMessage = {
      role: "toolResult",
      toolCallId: call.id,
      toolName: call.name,
      content: [{ type: "text", text: historyText(result, { firstShow: true }) }],
      isError: !result.ok,
      timestamp: Date.now(),
    };
    const entry: HistoryEntry = { step: state.step, message };
    if (result.includeOutputOnlyOnce && result.longTermMemory) {
      entry.laterText = historyText(result, { firstShow: false });
    }
    state.history.push(entry);
  });

  const failed = results.length > 0 && results.every((r) => !r.ok);
  const lastError = results.findLast((r) => r.error)?.error;
  breaker.record(failed, lastError ? `${lastError.code}: ${lastError.message}` : undefined);
  state.emit({
    type: "step_end",
    stopReason: chat.stopReason as StopReason,
    toolCalls: chat.toolCalls.length,
    usage: chat.usage,
    failed,
  });
  return chat.toolCalls.length === 0;
}

function finish(state: RunState, status: RunStatus, error?: ResonError): RunResult {
  const result: RunResult = {
    runId: state.deps.runId,
    status,
    finalText: state.lastText,
    steps: state.step,
    usage: state.usage,
    durationMs: Date.now() - state.startedAt,
  };
  if (error) result.error = serializeError(error);
  state.emit({ type: "run_end", ...result });
  return result;
}

function hookInfo(state: RunState) {
  return { runId: state.deps.runId, step: state.step, signal: state.deps.signal };
}

function deniedResult(tool: string, reason: string, durationMs: number): ToolResult {
  return {
    ok: false,
    content: `Error [tool_denied]: ${reason}`,
    meta: { tool, durationMs, truncated: false },
    error: { code: "tool_denied", message: reason },
  };
}

function abortedError(signal: AbortSignal): ResonError {
  const reason = signal.reason;
  if (reason instanceof ResonError) return reason;
  return new ResonError("aborted", "The run was cancelled.");
}

function maxIterationsError(max: number): ResonError {
  return new ResonError(
    "max_iterations",
    `The run reached its limit of ${max} model calls without a final answer.`,
    {
      hint: "Raise it with --max-iterations (or maxIterations in config), or split the task.",
    },
  );
}

function circuitOpenError(breaker: CircuitBreaker): ResonError {
  const reasons = breaker.reasons.map((r) => `  - ${r}`).join("\n");
  return new ResonError(
    "circuit_open",
    `Stopped after ${breaker.consecutiveFailures} consecutive steps in which every tool call failed:\n${reasons}`,
    { hint: "Look at the errors above; the task or the workspace may need a change before retrying." },
  );
}
