// `--metrics-port`: /metrics alone on a port of its own, bound to 127.0.0.1 only and open
// without a token (what a Prometheus agent or node exporter on the same machine scrapes, and
// what a `reson worker`, which has no API, offers). Anything else on it is 404. Nothing on it
// is secret: labels are providers, models, tools, statuses and error codes, never ids or text.
import { createServer, type Server } from "node:http";
import { ResonError } from "../core/errors.js";
import type { RunMetrics } from "../telemetry/index.js";
import { writeMetrics } from "./metrics-route.js";

export interface MetricsListener {
  url: string;
  close(): Promise<void>;
}

export async function startMetricsListener(options: {
  port: number;
  metrics: RunMetrics;
}): Promise<MetricsListener> {
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? "/").split("?")[0];
    if (req.method !== "GET" || path !== "/metrics") {
      res.writeHead(404, { "content-type": "text/plain" });
      res.end("only GET /metrics here\n");
      return;
    }
    writeMetrics(options.metrics, res).catch((error: unknown) => {
      res.writeHead(500, { "content-type": "text/plain" });
      res.end(`metrics could not be collected: ${error instanceof Error ? error.message : String(error)}\n`);
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", (error: NodeJS.ErrnoException) =>
      reject(
        new ResonError(
          "usage_error",
          `Cannot listen on 127.0.0.1:${options.port} for metrics: ${error.message}.`,
          {
            hint: "Pick another --metrics-port, or stop the program using this one.",
            cause: error,
          },
        ),
      ),
    );
    server.listen({ host: "127.0.0.1", port: options.port }, () => resolve());
  });
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : options.port;
  return {
    url: `http://127.0.0.1:${port}/metrics`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
