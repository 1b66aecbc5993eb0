// The ReAct loop: a state machine of four phases per step,
//   prepare -> call_provider -> dispatch_tools -> finalize,
// one step per model call. Every transition is an event, and every phase that changes the
// conversation is committed through the recorder before the next one starts, so a run can
// resume from any point (resume.ts). The control flow is in this file; where a run starts is
// loop-start.ts, how it ends run-end.ts.

import { applyGoalView, type HistoryEntry, renderUserText } from "../context/index.js";
import { abortError, stoppedByHost } from "../core/abort.js";
import { ResonError, toResonError } from "../core/errors.js";
import type { StopReason } from "../core/events.js";
import { emptyUsage } from "../core/usage.js";
import type { ChatRequest, ChatResult, ToolCall, ToolResultMessage } from "../providers/index.js";
import {
  type ArtifactMeta,
  type AskHuman,
  type Hop,
  historyText,
  type ToolCallRequest,
  type ToolResult,
  toolResultText,
} from "../tools/index.js";
import { chatOnce } from "./chat-once.js";
import type { ContextInput, PreparedRequest } from "./context-manager.js";
import type { HookInfo, ToolCallInfo } from "./hooks.js";
import type { LoopStart, PendingStep } from "./loop-start.js";
import { circuitOpenError, finish, finishStopped, maxIterationsError } from "./run-end.js";
import { type HopCheck, type LoopDeps, RunState } from "./run-state.js";
import { untrustedRead } from "./run-trust.js";
import { putBackNote, steeringKeepOut } from "./steering-put-back.js";
import type { StepSnapshots } from "./step-snapshots.js";
import { taskContent, taskText } from "./task-images.js";
import type { RunResult } from "./types.js";

/** Runs a run whose start is committed (see startSnapshot) to its end. */
export async function runLoop(deps: LoopDeps, start: LoopStart): Promise<RunResult> {
  const state = new RunState(deps, start.kind === "resume" ? start.snapshot.context : undefined);
  const { signal } = deps;
  try {
    state.history = [...start.history];
    if (start.kind === "new") {
      state.task = start.task;
      state.taskIndex = state.history.length;
      state.history.push({
        step: 0,
        // A chat message is seen with its envelope, as it renders from the store later.
        message: {
          role: "user",
          content: taskContent(
            start.envelope.chatId === undefined ? start.task : renderUserText(start.task, start.envelope),
            start.images,
          ),
          timestamp: start.envelope.receivedAt,
        },
      });
    } else {
      state.restore(start.snapshot);
      state.taskIndex = start.taskIndex;
      const taskMessage = state.history[start.taskIndex]?.message;
      state.task = taskMessage?.role === "user" ? taskText(taskMessage.content) : "";
      // Messages of this run are tagged with the goal their step served.
      for (const entry of state.history.slice(start.taskIndex)) {
        const goalId = state.stepGoals[entry.step];
        if (goalId && entry.step > 0) entry.goalId = goalId;
      }
      if (start.finished) return await finish(state, "completed");
      if (start.pending) {
        const { message, toolCalls } = start.pending;
        state.emit({ type: "phase", phase: "dispatch_tools" });
        const results = await dispatchTools(state, toolCalls, start.pending);
        state.emit({ type: "phase", phase: "finalize" });
        const text = message.content.flatMap((block) => (block.type === "text" ? [block.text] : [])).join("");
        await finalize(
          state,
          { message, toolCalls, stopReason: "toolUse", usage: emptyUsage(), text },
          results,
        );
        if (signal.aborted) return await finishStopped(state);
        if (state.breaker.open) return await finish(state, "failed", circuitOpenError(state.breaker));
      }
    }

    for (;;) {
      if (signal.aborted) return await finishStopped(state);
      if (state.step >= deps.limits.maxIterations) {
        return await finish(state, "failed", maxIterationsError(deps.limits.maxIterations));
      }
      // Before every call: sub-agents may have spent the rest, or a resumed run had none left.
      const spent = deps.budget.exceeded();
      if (spent) return await finish(state, "failed", spent);
      state.step++;
      state.emit({ type: "step_start" });

      const chat = await callProvider(state);
      // Over budget after this call: its tool calls stay unrun (a resume with a higher limit
      // runs them); a final answer still completes the run.
      const over = deps.budget.exceeded();
      if (over && chat.toolCalls.length > 0) return await finish(state, "failed", over);

      let results: ToolResult[] = [];
      if (chat.toolCalls.length > 0) {
        state.emit({ type: "phase", phase: "dispatch_tools" });
        results = await dispatchTools(state, chat.toolCalls);
      }

      state.emit({ type: "phase", phase: "finalize" });
      await finalize(state, chat, results);
      if (chat.toolCalls.length === 0) return await finish(state, "completed");
      if (signal.aborted) return await finishStopped(state);
      if (state.breaker.open) return await finish(state, "failed", circuitOpenError(state.breaker));
    }
  } catch (error) {
    const failure = toResonError(error);
    if (signal.aborted) return finishStopped(state);
    if (failure.code === "aborted") return finish(state, "aborted", failure);
    return finish(state, "failed", failure);
  }
}

function contextInput(state: RunState): ContextInput {
  const goals = state.goals;
  const notes = [
    ...(goals.size > 0 ? [`Goals (→ marks the focused one):\n${goals.render()}`] : []),
    ...(state.url !== undefined ? [`Current URL: ${state.url}`] : []),
  ];
  return {
    history: state.history,
    taskIndex: state.taskIndex,
    systemPrompt: state.deps.systemPrompt,
    tools: state.toolSpecs,
    step: state.step,
    view: (entries) => applyGoalView(entries, goals),
    ...(notes.length > 0 ? { volatile: notes.join("\n\n") } : {}),
  };
}

async function prepare(state: RunState): Promise<{ prepared: PreparedRequest; request: ChatRequest }> {
  const prepared = await state.context.prepare(contextInput(state));
  let request = prepared.request;
  for (const hooks of state.deps.hooks) {
    if (hooks.transformContext) request = await hooks.transformContext(request, hookInfo(state));
  }
  return { prepared, request };
}

/**
 * One model call. A context-overflow error from the provider leads to one compaction and one
 * retry; a second overflow fails the run with that code.
 */
async function callProvider(state: RunState): Promise<ChatResult> {
  const { deps } = state;
  state.stepGoal = state.goals.focused()?.id;
  state.emit({ type: "phase", phase: "prepare" });
  let { prepared, request } = await prepare(state);
  state.emit({
    type: "context_usage",
    estTokens: prepared.estTokens,
    budgetTokens: prepared.budgetTokens,
    windowTokens: deps.provider.model.contextWindow,
  });
  state.emit({ type: "phase", phase: "call_provider" });
  let chat: ChatResult;
  try {
    chat = await chatOnce(state, request);
  } catch (error) {
    if (!(error instanceof ResonError) || error.code !== "provider_context_overflow") throw error;
    try {
      await state.context.compact(contextInput(state), "overflow");
    } catch (compactError) {
      // Nothing could be compacted: the provider's own verdict is the clearer error.
      if (compactError instanceof ResonError && compactError.code === "context_exhausted") throw error;
      throw compactError;
    }
    ({ prepared, request } = await prepare(state));
    chat = await chatOnce(state, request);
  }
  const reported = chat.usage.input + chat.usage.cacheRead + chat.usage.cacheWrite;
  if (reported > 0 && request === prepared.request)
    state.context.estimator.observe(prepared.rawTokens, reported);
  deps.budget.charge(chat.usage);
  if (chat.text) state.lastText = chat.text;
  state.history.push(tagged(state, { step: state.step, message: chat.message }));
  state.committedStep = state.step;
  await deps.recorder.modelResponded(chat.message, chat.toolCalls.map(toRequest), state.snapshot(), {
    estTokens: prepared.estTokens,
    budgetTokens: prepared.budgetTokens,
    messages: request.messages.length,
    sections: deps.systemManifest ?? [],
    trimmedUpTo: state.context.state.trimUpTo,
    compactions: state.context.state.compaction?.count ?? 0,
    goal: state.stepGoal ?? null,
  });
  return chat;
}

function toRequest(call: ToolCall): ToolCallRequest {
  return { id: call.id, name: call.name, arguments: call.arguments };
}

/**
 * Runs the step's tool calls: consecutive read-only calls together in parallel, any other
 * call on its own, so a write is never reordered against the reads around it. Results come
 * back in the model's order.
 */
async function dispatchTools(
  state: RunState,
  toolCalls: ToolCall[],
  pending?: PendingStep,
): Promise<ToolResult[]> {
  const calls = toolCalls.map(toRequest);
  // Acting before planning: the task becomes the root goal, and this step serves it.
  if (state.goals.size === 0 && calls.some((call) => call.name !== "goal")) {
    state.goals.ensureRoot(state.task);
    state.stepGoal = state.goals.focused()?.id;
    const last = state.history.at(-1);
    if (last?.message.role === "assistant" && state.stepGoal) last.goalId = state.stepGoal;
    if (state.stepGoal) state.stepGoals[state.step] = state.stepGoal;
  }
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
        results[index] = await runToolCall(state, calls[index]!, pending);
      }),
    );
    i += batch.length;
  }
  return results;
}

function isReadOnly(state: RunState, call: ToolCallRequest): boolean {
  return state.deps.tools.get(call.name)?.readOnly === true;
}

async function runToolCall(
  state: RunState,
  call: ToolCallRequest,
  pending?: PendingStep,
): Promise<ToolResult> {
  const { deps } = state;
  state.emit({ type: "tool_call", toolCallId: call.id, name: call.name, arguments: call.arguments });
  const committed = pending?.done.get(call.id);
  if (committed) {
    await noteRead(state, call, committed);
    emitResult(state, call, committed);
    return committed;
  }
  if (pending?.interrupted.has(call.id)) {
    const result = interruptedResult(call.name);
    await deps.recorder.toolFinished(call, result);
    emitResult(state, call, result);
    return result;
  }

  const named = deps.secrets?.named(call.arguments) ?? [];
  const info: ToolCallInfo = {
    ...hookInfo(state),
    tool: deps.tools.get(call.name),
    ...(named.length > 0 ? { secrets: named } : {}),
    preview: (args) =>
      deps.tools.preview(
        { ...call, arguments: args },
        {
          workspace: deps.workspace,
          signal: deps.signal,
          ...(deps.secrets ? { secrets: deps.secrets } : {}),
        },
      ),
  };
  const startedAt = Date.now();
  let effective = call;
  let result: ToolResult | undefined;
  let permission: object | undefined;
  for (const hooks of deps.hooks) {
    if (!hooks.beforeToolCall) continue;
    const decision = await hooks.beforeToolCall(effective, info);
    if (decision?.record) permission = decision.record;
    if (!decision || decision.action === "allow") continue;
    if (decision.action === "deny") {
      result = deniedResult(call.name, decision.reason, decision.hint, Date.now() - startedAt);
      break;
    }
    effective = { ...effective, arguments: decision.arguments };
  }

  let files: Awaited<ReturnType<StepSnapshots["after"]>>;
  if (!result) {
    if (info.tool && !info.tool.readOnly) await deps.recorder.toolStarted(call);
    const snapshotted = deps.snapshots?.covers(effective, info.tool) === true;
    // As the run was when the call began: a call that reads untrusted content is not held back by it.
    const untrusted = state.untrusted;
    const keepOut = steeringKeepOut(effective, untrusted);
    if (snapshotted) await deps.snapshots!.before(state.step, effective, keepOut !== undefined);
    const compiledGuarded = state.compiledPython.covers(info.tool, untrusted);
    const lookFailed = compiledGuarded ? state.compiledPython.before() : undefined;
    const artifacts = deps.artifacts;
    result = await deps.tools.execute(effective, {
      workspace: deps.workspace,
      signal: deps.signal,
      runId: deps.runId,
      toolCallId: call.id,
      goals: state.goals,
      ...(deps.secrets ? { secrets: deps.secrets } : {}),
      ...(state.url !== undefined ? { url: state.url } : {}),
      setUrl: (url: string) => state.setUrl(url),
      ...(deps.askHuman ? { askHuman: askingHuman(state, deps.askHuman) } : {}),
      ...(state.untrusted ? { untrusted: state.untrusted } : {}),
      ...(deps.checkHop ? { checkHop: hopChecker(state, deps.checkHop) } : {}),
      ...(artifacts
        ? {
            saveArtifact: (content: string, meta: ArtifactMeta) =>
              artifacts.save(content, { ...meta, runId: deps.runId }),
            readArtifact: (id: string, offset: number, limit: number) => artifacts.read(id, offset, limit),
          }
        : {}),
    });
    // Before the snapshot after it, so that what is removed is not recorded as the call's.
    const compiled =
      compiledGuarded && untrusted ? state.compiledPython.after(effective, untrusted) : undefined;
    if (snapshotted) files = await deps.snapshots!.after(state.step, effective, keepOut);
    const putBack = files && untrusted ? putBackNote(files, untrusted) : undefined;
    for (const note of [lookFailed, compiled, putBack]) {
      if (!note) continue;
      result = { ...result, content: result.content === "" ? note : `${result.content}\n\n${note}` };
      state.emit({ type: "warning", message: note });
    }
  }
  // Cut short by the host's shutdown: nothing of the call is recorded, as after a crash, and
  // the next holder reports it as interrupted (a read-only one runs again).
  if (!result.ok && stoppedByHost(deps.signal)) throw abortError(deps.signal);
  for (const hooks of deps.hooks) {
    if (hooks.afterToolCall) result = (await hooks.afterToolCall(effective, result, info)) ?? result;
  }
  await noteRead(state, effective, result);
  // What ran: after an edit by the user (or a hook), the changed arguments are recorded.
  await deps.recorder.toolFinished(
    effective === call ? call : { ...call, arguments: effective.arguments },
    result,
    permission,
  );
  emitResult(state, call, result, permission);
  if (files) state.emit({ type: "files_changed", toolCallId: call.id, name: call.name, ...files });
  return result;
}

/** Marks the run untrusted when the result carries content from outside the user's files. */
async function noteRead(state: RunState, call: ToolCallRequest, result: ToolResult): Promise<void> {
  const source = untrustedRead(state.deps.runId, call, state.deps.tools.get(call.name), result);
  if (source) await state.trust.mark(source);
}

/** The host's hop check for this run, with its trust as it is when the hop happens. */
function hopChecker(state: RunState, check: HopCheck): (hop: Hop) => Promise<string | undefined> {
  return (hop) =>
    check(hop, { runId: state.deps.runId, ...(state.untrusted ? { untrusted: state.untrusted } : {}) });
}

/** The host's channel to the user, with each question announced as an event before it waits. */
function askingHuman(state: RunState, ask: AskHuman): AskHuman {
  return (question) => {
    state.emit({
      type: "human_question",
      toolCallId: question.toolCallId,
      question: question.question,
      ...(question.choices ? { choices: question.choices } : {}),
    });
    return ask(question);
  };
}

/** Tags an entry with the goal its step served (and remembers it for a resumed run). */
function tagged(state: RunState, entry: HistoryEntry): HistoryEntry {
  if (state.stepGoal === undefined) return entry;
  state.stepGoals[state.step] = state.stepGoal;
  return { ...entry, goalId: state.stepGoal };
}

function emitResult(state: RunState, call: ToolCallRequest, result: ToolResult, permission?: object): void {
  state.emit({
    type: "tool_result",
    ...(permission ? { permission } : {}),
    toolCallId: call.id,
    name: call.name,
    ok: result.ok,
    // A call that failed without output (denied, interrupted, refused) shows what the model
    // is told about it: the error and what to do.
    content: result.ok || result.content !== "" ? result.content : toolResultText(result),
    durationMs: result.meta.durationMs,
    truncated: result.meta.truncated,
    ...(result.error ? { error: result.error } : {}),
    // The two layers: what the model keeps seeing later, and whether the output is shown once.
    ...(result.longTermMemory ? { longTermMemory: boundedText(result.longTermMemory) } : {}),
    ...(result.includeOutputOnlyOnce ? { outputOnce: true } : {}),
  });
}

/** Events carry at most this much of a step's text or a result's memory (a viewer's preview). */
const EVENT_TEXT_CHARS = 4000;

function boundedText(text: string): string {
  return text.length <= EVENT_TEXT_CHARS ? text : `${text.slice(0, EVENT_TEXT_CHARS)}…`;
}

/** Records the tool results and the step's end, and feeds the circuit breaker. */
async function finalize(
  state: RunState,
  chat: Pick<ChatResult, "message" | "toolCalls" | "stopReason" | "usage"> & { text?: string },
  results: ToolResult[],
): Promise<void> {
  const messages: ToolResultMessage[] = chat.toolCalls.map((call, index) => {
    const result = results[index]!;
    const laterText =
      result.includeOutputOnlyOnce && result.longTermMemory
        ? historyText(result, { firstShow: false })
        : undefined;
    const message: ToolResultMessage = {
      role: "toolResult",
      toolCallId: call.id,
      toolName: call.name,
      content: [{ type: "text", text: historyText(result, { firstShow: true }) }],
      isError: !result.ok,
      timestamp: Date.now(),
      // Not sent to the model: what resume needs to render this result as it was.
      details: {
        ok: result.ok,
        ...(laterText === undefined ? {} : { laterText }),
        ...(result.longTermMemory ? { longTermMemory: result.longTermMemory } : {}),
        // Kept in view through trimming, compaction and the goal view (a loaded skill).
        ...(result.pinAs === undefined ? {} : { pinAs: result.pinAs }),
      },
    };
    const entry: HistoryEntry = tagged(state, { step: state.step, message });
    if (laterText !== undefined) entry.laterText = laterText;
    state.history.push(entry);
    return message;
  });

  const failed = results.length > 0 && results.every((r) => !r.ok);
  const lastError = results.findLast((r) => r.error)?.error;
  state.breaker.record(failed, lastError ? `${lastError.code}: ${lastError.message}` : undefined);
  await state.deps.recorder.stepFinished(messages, state.snapshot());
  const text = chat.text?.trim() ? boundedText(chat.text) : undefined;
  // The goal this step's messages were tagged with (also right for a step resumed after a crash).
  const goalId = state.stepGoals[state.step] ?? state.stepGoal;
  state.emit({
    type: "step_end",
    stopReason: chat.stopReason as StopReason,
    toolCalls: chat.toolCalls.length,
    usage: chat.usage,
    failed,
    ...(text === undefined ? {} : { text }),
    ...(goalId === undefined ? {} : { goalId }),
  });
}

function hookInfo(state: RunState): HookInfo {
  const untrusted = state.untrusted;
  return {
    runId: state.deps.runId,
    step: state.step,
    signal: state.deps.signal,
    ...(untrusted ? { untrusted } : {}),
  };
}

function deniedResult(
  tool: string,
  reason: string,
  hint: string | undefined,
  durationMs: number,
): ToolResult {
  return {
    ok: false,
    content: "",
    meta: { tool, durationMs, truncated: false },
    error: { code: "tool_denied", message: reason, ...(hint ? { hint } : {}) },
  };
}

function interruptedResult(tool: string): ToolResult {
  const message =
    "This call was interrupted before its result was saved (the process stopped while it ran). " +
    "It may or may not have taken effect.";
  return {
    ok: false,
    content: "",
    meta: { tool, durationMs: 0, truncated: false },
    error: {
      code: "tool_interrupted",
      message,
      hint: "Check the workspace for its effect before running it again.",
    },
  };
}
