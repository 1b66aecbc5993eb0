// The one place pi-ai is loaded, lazily: importing it costs a few hundred milliseconds, and
// `reson --version` or `--help` must not pay for it. Everything else imports its types only.
// The protocol module is loaded directly (a public subpath of pi-ai) rather than through
// pi-ai's `streamSimple`, whose lazy-loading wrapper re-queues every event of every call.
import type {
  Api,
  AssistantMessageEventStream,
  Context,
  Model,
  SimpleStreamOptions,
} from "@mariozechner/pi-ai";
import { importEsm } from "../core/esm-import.js";
import type { WireApi } from "./catalog.js";

export type PiAi = typeof import("@mariozechner/pi-ai");

export type StreamFunction = (
  model: Model<Api>,
  context: Context,
  options: SimpleStreamOptions,
) => AssistantMessageEventStream;

export interface PiRuntime {
  /** pi-ai's main module: the model registry, overflow detection. */
  pi: PiAi;
  /** The wire protocol's stream function. */
  stream: StreamFunction;
}

let loadingMain: Promise<PiAi> | undefined;

/** pi-ai's main module alone: the native wire needs it only to recognise a context overflow. */
export function loadPiMain(): Promise<PiAi> {
  loadingMain ??= importEsm<PiAi>("@mariozechner/pi-ai");
  return loadingMain;
}

const PROTOCOLS: Record<WireApi, () => Promise<unknown>> = {
  "openai-completions": async () =>
    (
      await importEsm<typeof import("@mariozechner/pi-ai/openai-completions")>(
        "@mariozechner/pi-ai/openai-completions",
      )
    ).streamSimpleOpenAICompletions,
  "anthropic-messages": async () =>
    (await importEsm<typeof import("@mariozechner/pi-ai/anthropic")>("@mariozechner/pi-ai/anthropic"))
      .streamSimpleAnthropic,
  "google-generative-ai": async () =>
    (await importEsm<typeof import("@mariozechner/pi-ai/google")>("@mariozechner/pi-ai/google"))
      .streamSimpleGoogle,
};

export async function loadPiAi(api: WireApi): Promise<PiRuntime> {
  const [pi, stream] = await Promise.all([loadPiMain(), PROTOCOLS[api]()]);
  // Each protocol's function is typed for its own api; the model passed is always that api's.
  return { pi, stream: stream as StreamFunction };
}
