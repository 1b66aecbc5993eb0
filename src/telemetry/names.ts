// Every name reson shows to OpenTelemetry and Prometheus, in one place: the GenAI semantic
// conventions are still "Development" and have renamed attributes before, so a rename is an
// edit here and nowhere else. Values follow semantic-conventions-genai (gen-ai-spans.md,
// gen-ai-agent-spans.md, gen-ai-metrics.md) as of late 2026.

/** Span names: `{operation} {subject}`. */
export const SPAN = {
  invokeAgent: (agent: string) => `invoke_agent ${agent}`,
  chat: (model: string) => `chat ${model}`,
  executeTool: (tool: string) => `execute_tool ${tool}`,
} as const;

export const OPERATION = {
  invokeAgent: "invoke_agent",
  chat: "chat",
  executeTool: "execute_tool",
} as const;

/** Span and metric attribute keys. */
export const ATTR = {
  operationName: "gen_ai.operation.name",
  providerName: "gen_ai.provider.name",
  requestModel: "gen_ai.request.model",
  responseModel: "gen_ai.response.model",
  finishReasons: "gen_ai.response.finish_reasons",
  inputTokens: "gen_ai.usage.input_tokens",
  outputTokens: "gen_ai.usage.output_tokens",
  cacheReadTokens: "gen_ai.usage.cache_read.input_tokens",
  cacheWriteTokens: "gen_ai.usage.cache_write.input_tokens",
  agentId: "gen_ai.agent.id",
  agentName: "gen_ai.agent.name",
  conversationId: "gen_ai.conversation.id",
  toolName: "gen_ai.tool.name",
  toolCallId: "gen_ai.tool.call.id",
  toolType: "gen_ai.tool.type",
  toolCallArguments: "gen_ai.tool.call.arguments",
  toolCallResult: "gen_ai.tool.call.result",
  inputMessages: "gen_ai.input.messages",
  outputMessages: "gen_ai.output.messages",
  tokenType: "gen_ai.token.type",
  errorType: "error.type",
  // reson's own, where the conventions have nothing yet.
  runStatus: "reson.run.status",
  runSteps: "reson.run.steps",
  costUsd: "reson.usage.cost_usd",
  subagentMode: "reson.subagent.mode",
  permissionDecision: "reson.permission.decision",
} as const;

/** The agent's name in `invoke_agent {name}` and `gen_ai.agent.name`. */
export const AGENT_NAME = "reson";

/** reson's provider ids as the conventions' `gen_ai.provider.name` values. */
export function genAiProviderName(provider: string): string {
  switch (provider) {
    case "google":
    case "gemini":
      return "gcp.gemini";
    case "xai":
      return "x_ai";
    case "anthropic":
    case "openai":
    case "deepseek":
    case "openrouter":
      return provider;
    default:
      // openai-compatible servers (Ollama, vLLM, llama.cpp) speak OpenAI's protocol.
      return provider === "openai-compatible" ? "openai" : provider;
  }
}

/** The conventions' `gen_ai.response.finish_reasons` for reson's stop reasons. */
export function finishReason(stopReason: string): string {
  if (stopReason === "toolUse") return "tool_call";
  return stopReason;
}

/** Bucket boundaries the conventions advise. */
export const TOKEN_BUCKETS = [
  1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864,
];
export const DURATION_BUCKETS_S = [
  0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92,
];

/**
 * Prometheus names. The two GenAI histograms keep the conventions' names with dots as
 * underscores (what OpenTelemetry's own Prometheus exporter does); the rest are reson's.
 */
export const METRIC = {
  tokenUsage: "gen_ai_client_token_usage",
  operationDuration: "gen_ai_client_operation_duration_seconds",
  runs: "reson_runs_total",
  runsActive: "reson_runs_active",
  steps: "reson_steps_total",
  toolCalls: "reson_tool_calls_total",
  toolDuration: "reson_tool_call_duration_seconds",
  providerRetries: "reson_provider_retries_total",
  circuitBreakerTrips: "reson_circuit_breaker_trips_total",
  contextTrims: "reson_context_trims_total",
  contextCompactions: "reson_context_compactions_total",
  budgetStops: "reson_budget_stops_total",
  queueDepth: "reson_queue_depth",
  queueOldestAge: "reson_queue_oldest_age_seconds",
  claims: "reson_worker_claims_total",
  leasesLost: "reson_worker_leases_lost_total",
} as const;

/** Prometheus label names (low cardinality only: never ids, paths or text). */
export const LABEL = {
  provider: "provider",
  model: "model",
  operation: "operation",
  tokenType: "token_type",
  status: "status",
  stopReason: "stop_reason",
  tool: "tool",
  outcome: "outcome",
  code: "code",
  reason: "reason",
  state: "state",
  kind: "kind",
} as const;
