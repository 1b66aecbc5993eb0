// What reson shows the world about the runs it executes: Prometheus metrics and OpenTelemetry
// spans, both made from the run event stream, and the names they use (one mapping module).
// Loading this index loads neither prom-client nor OpenTelemetry: they come when asked for.
export { type ClaimKind, type QueueDepthReading, RunMetrics, type RunMetricsOptions } from "./metrics.js";
export { ATTR, METRIC, SPAN } from "./names.js";
export {
  type ClaimFacts,
  claimKind,
  ServiceTelemetry,
  type ServiceTelemetryOptions,
} from "./service-telemetry.js";
export { traceIdOfRun } from "./trace-id.js";
export { RunTracer, type TelemetryConfig, type TracingSettings, tracingSettingsFrom } from "./tracing.js";
