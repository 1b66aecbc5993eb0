// What `reson serve` and `reson worker` observe of the runs they execute, put together: the
// Prometheus metrics (always, they cost nothing until scraped) and the OpenTelemetry spans
// (only when configured). One listener for the run events, one for the worker's claims.
import type { EventListener } from "../core/events.js";
import { type ClaimKind, type QueueDepthReading, RunMetrics } from "./metrics.js";
import { RunTracer, type TelemetryConfig, tracingSettingsFrom } from "./tracing.js";

export interface ServiceTelemetryOptions {
  env: NodeJS.ProcessEnv;
  config?: TelemetryConfig;
  queueDepth?: () => Promise<QueueDepthReading>;
  redact?: (text: string) => string;
}

/** A claim as the worker reports it: its attempt count and the error of the attempt before. */
export interface ClaimFacts {
  attempts: number;
  lastError: { code: string } | null;
}

export class ServiceTelemetry {
  readonly metrics: RunMetrics;
  /** Undefined unless an OTLP endpoint is configured. */
  readonly tracer: RunTracer | undefined;

  private constructor(metrics: RunMetrics, tracer: RunTracer | undefined) {
    this.metrics = metrics;
    this.tracer = tracer;
  }

  static async start(options: ServiceTelemetryOptions): Promise<ServiceTelemetry> {
    const settings = tracingSettingsFrom(options.env, options.config);
    const [metrics, tracer] = await Promise.all([
      RunMetrics.create({
        processMetrics: true,
        ...(options.queueDepth ? { queueDepth: options.queueDepth } : {}),
      }),
      settings
        ? RunTracer.start({ ...settings, ...(options.redact ? { redact: options.redact } : {}) })
        : undefined,
    ]);
    return new ServiceTelemetry(metrics, tracer);
  }

  /** The listener for every event of the runs this process executes. */
  readonly observe: EventListener = (event) => {
    this.metrics.observe(event);
    this.tracer?.observe(event);
  };

  /** A worker of this process claimed a run. */
  claimed(claim: ClaimFacts): void {
    this.metrics.claimed(claimKind(claim));
  }

  /** A worker of this process lost a run's lease to another process. */
  leaseLost(): void {
    this.metrics.leaseLost();
  }

  async shutdown(): Promise<void> {
    await this.tracer?.shutdown().catch(() => {});
  }
}

/**
 * A first attempt; a retry after an attempt that failed with an error; or a takeover: an
 * attempt before this one that neither ended nor gave the run back (its worker died and its
 * lease expired), since a graceful release gives its attempt back.
 */
export function claimKind(claim: ClaimFacts): ClaimKind {
  if (claim.attempts <= 1) return "first";
  if (claim.lastError && claim.lastError.code !== "worker_lost") return "retry";
  return "takeover";
}
