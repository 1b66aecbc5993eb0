// OpenTelemetry spans of the runs this process executes, made from their event stream: one
// `invoke_agent` per run (its trace id is the run's id, trace-id.ts), a `chat {model}` per model
// call and an `execute_tool {tool}` per tool call under it, sub-agents as nested `invoke_agent`.
// Exported over OTLP/HTTP. The SDK is loaded only when tracing is configured: off, reson
// never reads a byte of it.
import type * as OtelApi from "@opentelemetry/api";
import type * as OtlpHttp from "@opentelemetry/exporter-trace-otlp-http";
import type * as Resources from "@opentelemetry/resources";
import type * as SdkTrace from "@opentelemetry/sdk-trace-base";
import { importEsm } from "../core/esm-import.js";
import type { ResonEvent } from "../core/events.js";
import { AGENT_NAME, ATTR, finishReason, genAiProviderName, OPERATION, SPAN } from "./names.js";
import { traceIdOfRun } from "./trace-id.js";

export interface TracingSettings {
  /** OTLP base URL (`/v1/traces` is added); absent: the exporter reads OTEL_EXPORTER_OTLP_* itself. */
  endpoint?: string;
  headers?: Record<string, string>;
  /** Task, answer, tool arguments and results as span attributes (masked by `redact`). */
  includeContent: boolean;
  /** `service.name`; default OTEL_SERVICE_NAME, else "reson". */
  serviceName?: string;
  /** Masks secrets in content put on spans (the host's secret masker). */
  redact?: (text: string) => string;
}

/** The config's `telemetry` section as far as tracing goes. */
export interface TelemetryConfig {
  endpoint?: string;
  headers?: Record<string, string>;
  includeContent?: boolean;
  serviceName?: string;
}

/**
 * Tracing settings when it is asked for (an OTLP endpoint in the environment or in config),
 * else undefined: then nothing of OpenTelemetry is loaded.
 */
export function tracingSettingsFrom(
  env: NodeJS.ProcessEnv,
  config: TelemetryConfig | undefined,
): TracingSettings | undefined {
  const fromEnv = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || env.OTEL_EXPORTER_OTLP_ENDPOINT;
  if (env.OTEL_SDK_DISABLED === "true" || env.OTEL_TRACES_EXPORTER === "none") return undefined;
  if (!fromEnv && !config?.endpoint) return undefined;
  return {
    // The environment wins, as with every OTEL_* variable.
    ...(!fromEnv && config?.endpoint ? { endpoint: config.endpoint } : {}),
    ...(config?.headers ? { headers: config.headers } : {}),
    includeContent: config?.includeContent ?? false,
    ...((env.OTEL_SERVICE_NAME ?? config?.serviceName)
      ? { serviceName: env.OTEL_SERVICE_NAME ?? config?.serviceName }
      : {}),
  };
}

interface Loaded {
  api: typeof OtelApi;
  sdk: typeof SdkTrace;
  exporter: typeof OtlpHttp;
  resources: typeof Resources;
}

async function load(): Promise<Loaded> {
  const [api, sdk, exporter, resources] = await Promise.all([
    importEsm<typeof OtelApi>("@opentelemetry/api"),
    importEsm<typeof SdkTrace>("@opentelemetry/sdk-trace-base"),
    importEsm<typeof OtlpHttp>("@opentelemetry/exporter-trace-otlp-http"),
    importEsm<typeof Resources>("@opentelemetry/resources"),
  ]);
  return { api, sdk, exporter, resources };
}

interface OpenChat {
  span: OtelApi.Span;
  /** When the model call ended (the next phase); the span ends at step_end, with usage. */
  endedAt?: number;
}

interface RunSpans {
  span: OtelApi.Span;
  context: OtelApi.Context;
  /** The trace's root run: ends flush the export. */
  root: boolean;
  /** gen_ai.provider.name and the model, for the chat spans. */
  provider: string;
  model: string;
  chat?: OpenChat;
  tools: Map<string, { span: OtelApi.Span; name: string }>;
}

export class RunTracer {
  readonly #otel: Loaded;
  readonly #provider: SdkTrace.BasicTracerProvider;
  readonly #tracer: OtelApi.Tracer;
  readonly #settings: TracingSettings;
  readonly #runs = new Map<string, RunSpans>();
  /** Sub-agents announced by a parent, waiting for their own run_start (if it comes here). */
  readonly #children = new Map<string, { span: OtelApi.Span; parent: string }>();
  /** The trace id the next root span takes (the id generator reads it synchronously). */
  #nextTraceId: string | undefined;

  private constructor(otel: Loaded, settings: TracingSettings) {
    this.#otel = otel;
    this.#settings = settings;
    const random = new otel.sdk.RandomIdGenerator();
    const idGenerator = {
      generateTraceId: () => {
        const id = this.#nextTraceId ?? random.generateTraceId();
        this.#nextTraceId = undefined;
        return id;
      },
      generateSpanId: () => random.generateSpanId(),
    };
    const exporter = new otel.exporter.OTLPTraceExporter({
      ...(settings.endpoint ? { url: `${settings.endpoint.replace(/\/+$/, "")}/v1/traces` } : {}),
      ...(settings.headers ? { headers: settings.headers } : {}),
    });
    const resource = otel.resources
      .defaultResource()
      .merge(otel.resources.detectResources({ detectors: [otel.resources.envDetector] }))
      .merge(
        otel.resources.resourceFromAttributes({
          "service.name": settings.serviceName ?? "reson",
        }),
      );
    this.#provider = new otel.sdk.BasicTracerProvider({
      resource,
      idGenerator,
      spanProcessors: [new otel.sdk.BatchSpanProcessor(exporter)],
    });
    this.#tracer = this.#provider.getTracer("reson");
  }

  static async start(settings: TracingSettings): Promise<RunTracer> {
    return new RunTracer(await load(), settings);
  }

  /** Feeds one event of a run this process executes. */
  observe(event: ResonEvent): void {
    switch (event.type) {
      case "run_start":
        this.#startRun(event);
        return;
      case "phase":
        this.#phase(event.runId, event.phase, event.ts);
        return;
      case "step_end":
        this.#endChat(event);
        return;
      case "tool_call":
        this.#startTool(event);
        return;
      case "tool_result":
        this.#endTool(event);
        return;
      case "sub_trace_started":
        this.#startChild(event);
        return;
      case "sub_trace_completed":
        this.#endChild(event);
        return;
      case "run_end":
        this.#endRun(event);
        return;
      default:
        return;
    }
  }

  /** Sends what is buffered. */
  flush(): Promise<void> {
    return this.#provider.forceFlush();
  }

  /** Ends what is open (as interrupted), sends it and stops the exporter. */
  async shutdown(): Promise<void> {
    for (const [runId, run] of this.#runs) {
      run.span.setStatus({ code: this.#otel.api.SpanStatusCode.ERROR, message: "process stopped" });
      run.span.end();
      this.#runs.delete(runId);
    }
    await this.#provider.shutdown();
  }

  #content(text: string): string {
    return this.#settings.redact ? this.#settings.redact(text) : text;
  }

  #startRun(event: Extract<ResonEvent, { type: "run_start" }>): void {
    const { api } = this.#otel;
    const announced = this.#children.get(event.runId);
    const attributes: OtelApi.Attributes = {
      [ATTR.operationName]: OPERATION.invokeAgent,
      [ATTR.agentName]: AGENT_NAME,
      [ATTR.agentId]: event.runId,
      [ATTR.conversationId]: event.sessionId,
      [ATTR.providerName]: genAiProviderName(event.provider),
      [ATTR.requestModel]: event.model,
    };
    if (this.#settings.includeContent)
      attributes[ATTR.inputMessages] = JSON.stringify([
        { role: "user", parts: [{ type: "text", content: this.#content(event.task) }] },
      ]);
    if (announced) {
      // The sub-agent's own events reach this process too: its span is the one announced.
      announced.span.setAttributes(attributes);
      this.#runs.set(event.runId, {
        span: announced.span,
        context: api.trace.setSpan(api.ROOT_CONTEXT, announced.span),
        root: false,
        provider: genAiProviderName(event.provider),
        model: event.model,
        tools: new Map(),
      });
      this.#children.delete(event.runId);
      return;
    }
    this.#nextTraceId = traceIdOfRun(event.runId);
    const span = this.#tracer.startSpan(
      SPAN.invokeAgent(AGENT_NAME),
      { kind: api.SpanKind.INTERNAL, startTime: event.ts, attributes },
      api.ROOT_CONTEXT,
    );
    this.#nextTraceId = undefined;
    this.#runs.set(event.runId, {
      span,
      context: api.trace.setSpan(api.ROOT_CONTEXT, span),
      root: true,
      provider: genAiProviderName(event.provider),
      model: event.model,
      tools: new Map(),
    });
  }

  #phase(runId: string, phase: string, ts: number): void {
    const run = this.#runs.get(runId);
    if (!run) return;
    if (phase !== "call_provider") {
      if (run.chat && run.chat.endedAt === undefined) run.chat.endedAt = ts;
      return;
    }
    const { api } = this.#otel;
    const { model } = run;
    const span = this.#tracer.startSpan(
      SPAN.chat(model),
      {
        kind: api.SpanKind.CLIENT,
        startTime: ts,
        attributes: {
          [ATTR.operationName]: OPERATION.chat,
          [ATTR.providerName]: run.provider,
          [ATTR.requestModel]: model,
        },
      },
      run.context,
    );
    run.chat = { span };
  }

  #endChat(event: Extract<ResonEvent, { type: "step_end" }>): void {
    const run = this.#runs.get(event.runId);
    const chat = run?.chat;
    if (!run || !chat) return;
    const { usage } = event;
    chat.span.setAttributes({
      [ATTR.finishReasons]: [finishReason(event.stopReason)],
      [ATTR.inputTokens]: usage.input,
      [ATTR.outputTokens]: usage.output,
      [ATTR.cacheReadTokens]: usage.cacheRead,
      [ATTR.cacheWriteTokens]: usage.cacheWrite,
      [ATTR.costUsd]: usage.costUsd,
    });
    chat.span.end(chat.endedAt ?? event.ts);
    run.chat = undefined;
  }

  #startTool(event: Extract<ResonEvent, { type: "tool_call" }>): void {
    const run = this.#runs.get(event.runId);
    if (!run) return;
    const { api } = this.#otel;
    const attributes: OtelApi.Attributes = {
      [ATTR.operationName]: OPERATION.executeTool,
      [ATTR.toolName]: event.name,
      [ATTR.toolCallId]: event.toolCallId,
      [ATTR.toolType]: "function",
    };
    if (this.#settings.includeContent)
      attributes[ATTR.toolCallArguments] = this.#content(JSON.stringify(event.arguments));
    const span = this.#tracer.startSpan(
      SPAN.executeTool(event.name),
      { kind: api.SpanKind.INTERNAL, startTime: event.ts, attributes },
      run.context,
    );
    run.tools.set(event.toolCallId, { span, name: event.name });
  }

  #endTool(event: Extract<ResonEvent, { type: "tool_result" }>): void {
    const run = this.#runs.get(event.runId);
    const tool = run?.tools.get(event.toolCallId);
    if (!run || !tool) return;
    const { api } = this.#otel;
    if (this.#settings.includeContent)
      tool.span.setAttribute(ATTR.toolCallResult, this.#content(event.content));
    const permission = event.permission as { decision?: unknown } | undefined;
    if (typeof permission?.decision === "string")
      tool.span.setAttribute(ATTR.permissionDecision, permission.decision);
    if (!event.ok) {
      tool.span.setAttribute(ATTR.errorType, event.error?.code ?? "tool_failed");
      tool.span.setStatus({ code: api.SpanStatusCode.ERROR, message: event.error?.message ?? "" });
    }
    tool.span.end(event.ts);
    run.tools.delete(event.toolCallId);
  }

  #startChild(event: Extract<ResonEvent, { type: "sub_trace_started" }>): void {
    const run = this.#runs.get(event.runId);
    if (!run) return;
    const { api } = this.#otel;
    // Under the subagent tool call that started it (the newest still open), else the run.
    const parentTool = [...run.tools.values()].reverse().find((t) => t.name === "subagent");
    const parent = parentTool ? api.trace.setSpan(run.context, parentTool.span) : run.context;
    const attributes: OtelApi.Attributes = {
      [ATTR.operationName]: OPERATION.invokeAgent,
      [ATTR.agentName]: event.preset,
      [ATTR.agentId]: event.childRunId,
      [ATTR.subagentMode]: event.mode,
    };
    if (this.#settings.includeContent)
      attributes[ATTR.inputMessages] = JSON.stringify([
        { role: "user", parts: [{ type: "text", content: this.#content(event.task) }] },
      ]);
    const span = this.#tracer.startSpan(
      SPAN.invokeAgent(event.preset),
      { kind: api.SpanKind.INTERNAL, startTime: event.ts, attributes },
      parent,
    );
    this.#children.set(event.childRunId, { span, parent: event.runId });
  }

  #endChild(event: Extract<ResonEvent, { type: "sub_trace_completed" }>): void {
    const announced = this.#children.get(event.childRunId);
    const span = announced?.span ?? this.#runs.get(event.childRunId)?.span;
    if (!span) return;
    this.#closeRunSpan(span, event.status, event.steps, event.usage, event.error?.code, event.ts);
    this.#children.delete(event.childRunId);
    this.#runs.delete(event.childRunId);
  }

  #endRun(event: Extract<ResonEvent, { type: "run_end" }>): void {
    const run = this.#runs.get(event.runId);
    if (!run) return;
    const { api } = this.#otel;
    const code = event.error?.code;
    // A model call open at the end is the one that failed the run.
    if (run.chat) {
      if (code) {
        run.chat.span.setAttribute(ATTR.errorType, code);
        run.chat.span.setStatus({ code: api.SpanStatusCode.ERROR, message: event.error?.message ?? "" });
      }
      run.chat.span.end(run.chat.endedAt ?? event.ts);
    }
    for (const tool of run.tools.values()) tool.span.end(event.ts);
    if (this.#settings.includeContent && event.finalText)
      run.span.setAttribute(
        ATTR.outputMessages,
        JSON.stringify([
          { role: "assistant", parts: [{ type: "text", content: this.#content(event.finalText) }] },
        ]),
      );
    // Not a sub-agent announced here: it ends through sub_trace_completed in its parent.
    if (!run.root) return;
    this.#closeRunSpan(run.span, event.status, event.steps, event.usage, code, event.ts);
    this.#runs.delete(event.runId);
    void this.flush().catch(() => {});
  }

  #closeRunSpan(
    span: OtelApi.Span,
    status: string,
    steps: number,
    usage: { input: number; output: number; cacheRead: number; cacheWrite: number; costUsd: number },
    code: string | undefined,
    ts: number,
  ): void {
    const { api } = this.#otel;
    span.setAttributes({
      [ATTR.runStatus]: status,
      [ATTR.runSteps]: steps,
      [ATTR.inputTokens]: usage.input,
      [ATTR.outputTokens]: usage.output,
      [ATTR.cacheReadTokens]: usage.cacheRead,
      [ATTR.cacheWriteTokens]: usage.cacheWrite,
      [ATTR.costUsd]: usage.costUsd,
    });
    if (status !== "completed") {
      span.setAttribute(ATTR.errorType, code ?? status);
      span.setStatus({ code: api.SpanStatusCode.ERROR, message: code ?? status });
    }
    span.end(ts);
  }
}
