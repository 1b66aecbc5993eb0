// A plugin's hooks and event listeners, guarded so that no plugin can stop or stall a run: a
// hook that throws, hangs past its time or returns something malformed is reported and the
// call goes on as if the hook had returned nothing; a listener that throws is reported once.
import type { AgentHooks, ToolCallDecision } from "../agent/index.js";
import type { EventListener, PluginErrorEvent, ResonEvent } from "../core/events.js";
import { humanDuration } from "../core/human-duration.js";
import type { ToolResult } from "../tools/index.js";
import type { PluginEventListener, PluginHookName } from "./api.js";

/** A hook's or listener's failure, with the run it happened in. */
export type PluginProblem = Pick<PluginErrorEvent, "plugin" | "hook" | "message"> & { runId: string };
/** True when the problem reached someone (a run not yet in flight cannot take it yet). */
export type ReportPluginProblem = (problem: PluginProblem) => boolean;

export interface RegisteredHook {
  plugin: string;
  hook: PluginHookName;
  fn: (...args: never[]) => unknown;
}

function messageOf(thrown: unknown): string {
  return thrown instanceof Error ? thrown.message : String(thrown);
}

/**
 * The hook's outcome, or undefined when it threw or took longer than `timeoutMs` (then the
 * signal it was given aborts, and whatever it still does is ignored).
 */
async function guarded<T>(
  hook: RegisteredHook,
  info: { runId: string; signal: AbortSignal },
  timeoutMs: number,
  report: ReportPluginProblem,
  call: (signal: AbortSignal) => T | Promise<T>,
): Promise<T | undefined> {
  const timer = new AbortController();
  const signal = AbortSignal.any([info.signal, timer.signal]);
  let timeout: NodeJS.Timeout | undefined;
  const problem = (message: string) =>
    report({ plugin: hook.plugin, hook: hook.hook, runId: info.runId, message });
  try {
    const pending = Promise.resolve().then(() => call(signal));
    const expired = new Promise<"timeout">((resolve) => {
      timeout = setTimeout(() => resolve("timeout"), timeoutMs);
    });
    const outcome = await Promise.race([pending, expired]);
    if (outcome === "timeout") {
      timer.abort();
      pending.catch(() => {}); // abandoned: a late failure is no one's concern
      if (!info.signal.aborted)
        problem(
          `did not finish within ${humanDuration(timeoutMs)} and was abandoned (config timeouts.pluginHookMs)`,
        );
      return undefined;
    }
    return outcome as T;
  } catch (thrown) {
    if (!info.signal.aborted) problem(`threw: ${messageOf(thrown)}`);
    return undefined;
  } finally {
    clearTimeout(timeout);
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isDecision(value: unknown): value is ToolCallDecision {
  if (!isRecord(value)) return false;
  if (value.action === "allow") return true;
  if (value.action === "deny") return typeof value.reason === "string";
  if (value.action === "modify") return isRecord(value.arguments);
  return false;
}

function isToolResult(value: unknown): value is ToolResult {
  return (
    isRecord(value) &&
    typeof value.ok === "boolean" &&
    typeof value.content === "string" &&
    isRecord(value.meta)
  );
}

/** One AgentHooks per registered hook, in the order the plugins registered them. */
export function guardHooks(
  hooks: readonly RegisteredHook[],
  timeoutMs: number,
  report: ReportPluginProblem,
): AgentHooks[] {
  return hooks.map((hook): AgentHooks => {
    const malformed = (runId: string, what: string) =>
      report({ plugin: hook.plugin, hook: hook.hook, runId, message: `returned ${what}; ignored` });
    if (hook.hook === "transformContext") {
      const fn = hook.fn as unknown as NonNullable<AgentHooks["transformContext"]>;
      return {
        transformContext: async (request, info) => {
          const out = await guarded(hook, info, timeoutMs, report, (signal) =>
            fn(request, { ...info, signal }),
          );
          if (out === undefined) return request;
          if (!isRecord(out) || !Array.isArray(out.messages)) {
            malformed(info.runId, "something that is not a request");
            return request;
          }
          return out;
        },
      };
    }
    if (hook.hook === "beforeToolCall") {
      const fn = hook.fn as unknown as NonNullable<AgentHooks["beforeToolCall"]>;
      return {
        beforeToolCall: async (call, info) => {
          const out = await guarded(hook, info, timeoutMs, report, (signal) => fn(call, { ...info, signal }));
          if (out === undefined || out === null) return undefined;
          if (isDecision(out)) {
            // `record` is the permission gate's account of why; a plugin cannot write one.
            const { record: _notTheGates, ...decision } = out;
            return decision as ToolCallDecision;
          }
          malformed(info.runId, 'something that is not a decision ({action: "allow" | "deny" | "modify"})');
          return undefined;
        },
      };
    }
    const fn = hook.fn as unknown as NonNullable<AgentHooks["afterToolCall"]>;
    return {
      afterToolCall: async (call, result, info) => {
        const out = await guarded(hook, info, timeoutMs, report, (signal) =>
          fn(call, result, { ...info, signal }),
        );
        if (out === undefined || out === null) return undefined;
        if (isToolResult(out)) return out;
        malformed(info.runId, "something that is not a tool result");
        return undefined;
      },
    };
  });
}

function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value)) deepFreeze(inner);
  }
  return value;
}

export interface GuardedListener {
  listener: EventListener;
  /** Resolves when the listener's unfinished async work has ended, or after `timeoutMs`. */
  settled(timeoutMs: number): Promise<void>;
}

/**
 * A listener that gets its own frozen copy of each event (so it cannot change what others see)
 * and whose first failure is reported, later ones not: a report is an event it would hear too.
 */
export function guardListener(
  plugin: string,
  fn: PluginEventListener,
  report: ReportPluginProblem,
): GuardedListener {
  let reported = false;
  const pending = new Set<Promise<void>>();
  const failed = (event: ResonEvent, thrown: unknown) => {
    if (reported) return;
    reported = true;
    reported = report({ plugin, hook: "event", runId: event.runId, message: `threw: ${messageOf(thrown)}` });
  };
  const listener: EventListener = (event) => {
    try {
      const out = fn(deepFreeze(structuredClone(event)));
      if (out instanceof Promise) {
        const done = out.then(
          () => {},
          (thrown: unknown) => failed(event, thrown),
        );
        pending.add(done);
        void done.finally(() => pending.delete(done));
      }
    } catch (thrown) {
      failed(event, thrown);
    }
  };
  const settled = async (timeoutMs: number) => {
    if (pending.size === 0) return;
    let timer: NodeJS.Timeout | undefined;
    const expired = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, timeoutMs);
    });
    await Promise.race([Promise.all(pending), expired]);
    clearTimeout(timer);
  };
  return { listener, settled };
}
