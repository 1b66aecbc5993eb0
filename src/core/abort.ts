// Abort helpers: sleeps and waits that end as soon as a signal fires, and linked child
// controllers that remove their listener when done (no listener pile-up on long runs).
import { ResonError } from "./errors.js";

export function abortError(signal?: AbortSignal): ResonError {
  const reason = signal?.reason;
  if (reason instanceof ResonError) return reason;
  return new ResonError("aborted", "The operation was cancelled.");
}

/**
 * The reason a host aborts its runs with when it shuts down (see "host_stopping"): a run that
 * sees it stops at its next safe point and writes no end, no learning, no result of the call it
 * cut short, so the next holder resumes it as after a crash.
 */
export function hostStoppingError(host: string): ResonError {
  return new ResonError("host_stopping", `${host} is stopping; the run was left to resume elsewhere.`, {
    hint: "Nothing to do: another worker (or this one, started again) resumes it from its last committed step.",
  });
}

/** Whether `signal` fired because its host is shutting down, not because someone cancelled. */
export function stoppedByHost(signal: AbortSignal | undefined): boolean {
  const reason: unknown = signal?.reason;
  return signal?.aborted === true && reason instanceof ResonError && reason.code === "host_stopping";
}

export function throwIfAborted(signal?: AbortSignal): void {
  if (signal?.aborted) throw abortError(signal);
}

export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return Promise.reject(abortError(signal));
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      reject(abortError(signal));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/** A controller that aborts when `parent` does; call `dispose` when finished to unlink it. */
export interface LinkedController {
  controller: AbortController;
  signal: AbortSignal;
  dispose(): void;
}

export function linkedController(parent?: AbortSignal): LinkedController {
  const controller = new AbortController();
  if (!parent) return { controller, signal: controller.signal, dispose: () => {} };
  if (parent.aborted) {
    controller.abort(parent.reason);
    return { controller, signal: controller.signal, dispose: () => {} };
  }
  const onAbort = () => controller.abort(parent.reason);
  parent.addEventListener("abort", onAbort, { once: true });
  return {
    controller,
    signal: controller.signal,
    dispose: () => parent.removeEventListener("abort", onAbort),
  };
}
