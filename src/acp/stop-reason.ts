// Why a prompt turn ended, in ACP's words, from how the run ended: completed is end_turn (or
// max_tokens when the model's last answer was cut at its output limit), cancelled is
// cancelled, the iteration limit is max_turn_requests, a token budget max_tokens and a
// provider's safety filter refusal. Any other failure is not a stop reason but an error the
// editor shows, with reson's hint.
import type { StopReason } from "@agentclientprotocol/sdk";
import type { RunResult } from "../agent/index.js";
import { ResonError } from "../core/errors.js";

export function stopReason(result: RunResult, lastStepStop: string | undefined): StopReason {
  if (result.status === "completed") return lastStepStop === "length" ? "max_tokens" : "end_turn";
  if (result.status === "aborted") return "cancelled";
  const error = result.error;
  if (error?.code === "max_iterations") return "max_turn_requests";
  if (error?.code === "budget_exceeded" && error.details?.limit === "tokens") return "max_tokens";
  if (error?.details?.refusal === true) return "refusal";
  throw new ResonError(error?.code ?? "internal_error", error?.message ?? "The run failed.", {
    hint: error?.hint ?? `See what happened with \`reson trace show ${result.runId}\`.`,
    details: { runId: result.runId, ...(error?.details ?? {}) },
  });
}
