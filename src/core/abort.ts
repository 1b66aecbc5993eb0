// Abort helpers: sleeps and waits that end as soon as a signal fires, and linked child
// controllers that remove their listener when done (no listener pile-up on long runs).
import { ResonError } from "./errors.js";

export function abortError(signal?: AbortSignal): ResonError {
  const reason = signal?.reason;
  if (reason instanceof ResonError) return reason;
  return new ResonError("aborted", "The operation was cancelled.");
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
