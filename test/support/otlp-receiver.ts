// A small OpenTelemetry collector for tests: OTLP/HTTP on 127.0.0.1 that accepts
// POST /v1/traces in the JSON encoding (what @opentelemetry/exporter-trace-otlp-http sends),
// gzip or not, and keeps every span it received, flattened with its attributes decoded.
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { gunzipSync } from "node:zlib";

export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string | undefined;
  name: string;
  kind: number;
  startMs: number;
  endMs: number;
  status: { code?: number; message?: string };
  attributes: Record<string, unknown>;
  resource: Record<string, unknown>;
}

export interface OtlpReceiver {
  /** The base URL, for OTEL_EXPORTER_OTLP_ENDPOINT. */
  url: string;
  spans: ReceivedSpan[];
  /** Request headers of every export (to check OTEL_EXPORTER_OTLP_HEADERS). */
  headers: Array<Record<string, string | string[] | undefined>>;
  /** Resolves once `predicate` holds for the spans received, or rejects after `timeoutMs`. */
  waitFor(predicate: (spans: ReceivedSpan[]) => boolean, timeoutMs?: number): Promise<ReceivedSpan[]>;
  close(): Promise<void>;
}

interface AnyValue {
  stringValue?: string;
  boolValue?: boolean;
  intValue?: number | string;
  doubleValue?: number;
  arrayValue?: { values?: AnyValue[] };
}

function decode(value: AnyValue | undefined): unknown {
  if (!value) return undefined;
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.boolValue !== undefined) return value.boolValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  if (value.doubleValue !== undefined) return value.doubleValue;
  if (value.arrayValue) return (value.arrayValue.values ?? []).map(decode);
  return undefined;
}

function attributes(list: Array<{ key: string; value: AnyValue }> | undefined): Record<string, unknown> {
  return Object.fromEntries((list ?? []).map((a) => [a.key, decode(a.value)]));
}

function nanosToMs(value: string | number): number {
  return Number(BigInt(value) / 1_000_000n);
}

async function body(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const raw = Buffer.concat(chunks);
  return req.headers["content-encoding"] === "gzip" ? gunzipSync(raw) : raw;
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const headers: OtlpReceiver["headers"] = [];
  const waiters = new Set<() => void>();
  const server = createServer((req, res) => {
    void body(req).then((raw) => {
      if (req.method !== "POST" || req.url !== "/v1/traces") {
        res.writeHead(404).end();
        return;
      }
      if (!String(req.headers["content-type"]).startsWith("application/json")) {
        res.writeHead(415).end("this test receiver speaks OTLP/JSON only");
        return;
      }
      headers.push(req.headers);
      const payload = JSON.parse(raw.toString("utf8")) as {
        resourceSpans?: Array<{
          resource?: { attributes?: Array<{ key: string; value: AnyValue }> };
          scopeSpans?: Array<{ spans?: Array<Record<string, unknown>> }>;
        }>;
      };
      for (const resourceSpans of payload.resourceSpans ?? []) {
        const resource = attributes(resourceSpans.resource?.attributes);
        for (const scope of resourceSpans.scopeSpans ?? [])
          for (const span of scope.spans ?? [])
            spans.push({
              traceId: String(span.traceId),
              spanId: String(span.spanId),
              parentSpanId: span.parentSpanId ? String(span.parentSpanId) : undefined,
              name: String(span.name),
              kind: Number(span.kind),
              startMs: nanosToMs(span.startTimeUnixNano as string),
              endMs: nanosToMs(span.endTimeUnixNano as string),
              status: (span.status ?? {}) as ReceivedSpan["status"],
              attributes: attributes(span.attributes as Array<{ key: string; value: AnyValue }>),
              resource,
            });
      }
      res.writeHead(200, { "content-type": "application/json" }).end("{}");
      for (const waiter of waiters) waiter();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    spans,
    headers,
    waitFor(predicate, timeoutMs = 20_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (!predicate(spans)) return;
          cleanup();
          resolve(spans);
        };
        const timer = setTimeout(() => {
          cleanup();
          reject(new Error(`spans received so far do not match: ${spans.map((s) => s.name).join(", ")}`));
        }, timeoutMs);
        const cleanup = () => {
          clearTimeout(timer);
          waiters.delete(check);
        };
        waiters.add(check);
        check();
      });
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
