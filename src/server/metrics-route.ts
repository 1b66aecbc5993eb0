// GET /metrics: the Prometheus text of the runs this process executes and of the store's
// queue, behind the bearer token like every route (Prometheus sends it with
// `authorization: { credentials_file: … }`); `--metrics-port` serves the same without a token
// on loopback only (metrics-listener.ts).
import type { ServerResponse } from "node:http";
import type { RunMetrics } from "../telemetry/index.js";
import { defineRoute, type Route } from "./router.js";

export function metricsRoute(metrics: RunMetrics): Route {
  return defineRoute({
    method: "GET",
    path: "/metrics",
    summary: "Prometheus metrics: runs, steps, tokens, tool calls, retries, queue depth",
    tags: ["server"],
    responses: {
      200: { description: "Prometheus text exposition format", contentType: "text/plain; version=0.0.4" },
    },
    handler: async ({ res }) => {
      await writeMetrics(metrics, res);
      return undefined;
    },
  });
}

/** Writes one scrape as the response. */
export async function writeMetrics(metrics: RunMetrics, res: ServerResponse): Promise<void> {
  const text = await metrics.scrape();
  res.writeHead(200, { "content-type": metrics.contentType, "cache-control": "no-store" });
  res.end(text);
}
