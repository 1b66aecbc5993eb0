// End to end: every provider fault the fake server can inject ends in the right error code
// and exit status through the built CLI; the recoverable ones succeed after retries.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cleanEnv, parseEvents, runCli, type TempDir, tempDir } from "../support/cli.js";
import { type FakeReply, startFakeModelServer } from "../support/fake-model-server.js";

type Protocol = "openai-compatible" | "anthropic" | "google";

interface FaultCase {
  name: string;
  replies: FakeReply[];
  exit: number;
  code?: string;
  requests: number;
  retries: number;
}

const OK: FakeReply = { text: "recovered" };

const CASES: FaultCase[] = [
  {
    name: "401",
    replies: [{ fault: "http", status: 401 }],
    exit: 1,
    code: "provider_auth_failed",
    requests: 1,
    retries: 0,
  },
  {
    name: "429 with Retry-After: 1, then OK",
    replies: [{ fault: "http", status: 429, retryAfter: "1" }, OK],
    exit: 0,
    requests: 2,
    retries: 1,
  },
  {
    name: "429 with Retry-After: 120 (beyond the cap)",
    replies: [{ fault: "http", status: 429, retryAfter: "120" }],
    exit: 1,
    code: "provider_rate_limited",
    requests: 1,
    retries: 0,
  },
  {
    name: "500 twice, then OK",
    replies: [{ fault: "http", status: 500 }, { fault: "http", status: 500 }, OK],
    exit: 0,
    requests: 3,
    retries: 2,
  },
  {
    name: "503 on every attempt",
    replies: [
      { fault: "http", status: 503 },
      { fault: "http", status: 503 },
      { fault: "http", status: 503 },
    ],
    exit: 1,
    code: "provider_unavailable",
    requests: 3,
    retries: 2,
  },
  {
    name: "hang before headers",
    replies: [{ fault: "hang" }, { fault: "hang" }, { fault: "hang" }],
    exit: 1,
    code: "provider_timeout",
    requests: 3,
    retries: 2,
  },
  {
    name: "silence mid-stream, then OK",
    replies: [{ fault: "stall" }, OK],
    exit: 0,
    requests: 2,
    retries: 1,
  },
  {
    name: "silence mid-stream on every attempt",
    replies: [{ fault: "stall" }, { fault: "stall" }, { fault: "stall" }],
    exit: 1,
    code: "provider_timeout",
    requests: 3,
    retries: 2,
  },
  { name: "reset mid-stream, then OK", replies: [{ fault: "reset" }, OK], exit: 0, requests: 2, retries: 1 },
  {
    name: "reset mid-stream on every attempt",
    replies: [{ fault: "reset" }, { fault: "reset" }, { fault: "reset" }],
    exit: 1,
    code: "provider_unavailable",
    requests: 3,
    retries: 2,
  },
  {
    name: "malformed SSE",
    replies: [{ fault: "malformed" }],
    exit: 1,
    code: "provider_bad_response",
    requests: 1,
    retries: 0,
  },
  {
    name: "stream ends without finishing",
    replies: [{ fault: "truncate" }],
    exit: 1,
    code: "provider_bad_response",
    requests: 1,
    retries: 0,
  },
  {
    name: "context overflow",
    replies: [{ fault: "overflow" }],
    exit: 1,
    code: "provider_context_overflow",
    requests: 1,
    retries: 0,
  },
  {
    name: "other 400",
    replies: [{ fault: "http", status: 400 }],
    exit: 1,
    code: "provider_bad_response",
    requests: 1,
    retries: 0,
  },
];

/** Whether a case's server hangs or stalls, so only timeouts end its requests. */
const goesSilent = (replies: readonly unknown[]) =>
  replies.some((reply) => ["hang", "stall"].includes((reply as { fault?: string }).fault ?? ""));

describe.each<Protocol>(["openai-compatible", "anthropic", "google"])(
  "provider faults through the CLI (%s)",
  (protocol) => {
    let ws: TempDir;
    beforeAll(() => {
      ws = tempDir();
    });
    afterAll(() => ws.remove());

    it.each(CASES)("$name", async (fault) => {
      const server = await startFakeModelServer({ replies: fault.replies });
      try {
        const baseUrl = {
          "openai-compatible": server.openaiBaseUrl,
          anthropic: server.anthropicBaseUrl,
          google: server.googleBaseUrl,
        }[protocol];
        const result = await runCli(
          ["run", "--json", "--provider", protocol, "--base-url", baseUrl, "--api-key", "k", "hi"],
          {
            cwd: ws.path,
            env: cleanEnv({
              RESON_HOME: ws.home,
              RESON_RETRY_MAX_ATTEMPTS: "3",
              RESON_RETRY_BASE_DELAY_MS: "20",
              // Short timeouts only where the server goes silent: elsewhere a busy machine's
              // slow answer would time out and be retried, which the case does not test.
              ...(goesSilent(fault.replies)
                ? { RESON_HEADERS_TIMEOUT_MS: "400", RESON_IDLE_TIMEOUT_MS: "400" }
                : {}),
            }),
          },
        );
        const events = parseEvents(result.stdout);
        const end = events.at(-1)!;
        expect(end.type).toBe("run_end");
        expect(result.code).toBe(fault.exit);
        if (fault.code) {
          expect(end).toMatchObject({ status: "failed", error: { code: fault.code } });
          expect((end.error as { message: string }).message).not.toContain("undefined");
        } else {
          expect(end).toMatchObject({ status: "completed", finalText: "recovered" });
        }
        expect(server.requests.filter((r) => r.protocol !== "other")).toHaveLength(fault.requests);
        expect(events.filter((e) => e.type === "provider_retry")).toHaveLength(fault.retries);
      } finally {
        await server.close();
      }
    });
  },
);

describe("Gemini quota refusals through the CLI", () => {
  let ws: TempDir;
  beforeAll(() => {
    ws = tempDir();
  });
  afterAll(() => ws.remove());

  const run = async (replies: FakeReply[]) => {
    const server = await startFakeModelServer({ replies });
    try {
      const result = await runCli(
        ["run", "--json", "--provider", "google", "--base-url", server.googleBaseUrl, "--api-key", "k", "hi"],
        { cwd: ws.path, env: cleanEnv({ RESON_HOME: ws.home }) },
      );
      return { result, events: parseEvents(result.stdout), requests: server.requests.length };
    } finally {
      await server.close();
    }
  };

  it("a per-minute quota (429 RESOURCE_EXHAUSTED) waits the body's retryDelay and the run completes", async () => {
    const { result, events, requests } = await run([
      { fault: "quota", quota: "minute", retryAfterS: 1 },
      { text: "answered after the wait" },
    ]);
    expect(result.code).toBe(0);
    expect(events.filter((e) => e.type === "provider_retry")).toEqual([
      expect.objectContaining({
        delayMs: 1000,
        error: expect.objectContaining({ code: "provider_rate_limited" }),
      }),
    ]);
    expect(events.at(-1)).toMatchObject({ type: "run_end", status: "completed" });
    expect(requests).toBe(2);
  });

  it("a per-day quota stops the run at once as provider_rate_limited, naming the quota", async () => {
    const { result, events, requests } = await run([{ fault: "quota", quota: "day" }, OK]);
    expect(result.code).toBe(1);
    const end = events.at(-1)!;
    expect(end).toMatchObject({
      type: "run_end",
      status: "failed",
      error: { code: "provider_rate_limited" },
    });
    const { message, hint } = end.error as { message: string; hint: string };
    expect(message).toContain("GenerateRequestsPerDayPerProjectPerModel-FreeTier");
    expect(hint).toMatch(/daily quota GenerateRequestsPerDayPerProjectPerModel-FreeTier.*midnight Pacific/);
    expect(events.filter((e) => e.type === "provider_retry")).toEqual([]);
    expect(requests).toBe(1);
  });
});

describe("waits named in hints", () => {
  let ws: TempDir;
  beforeAll(() => {
    ws = tempDir();
  });
  afterAll(() => ws.remove());

  it("a Retry-After of days is told in days and hours, not in seconds", async () => {
    const server = await startFakeModelServer({
      replies: [{ fault: "http", status: 429, retryAfter: "411480" }],
    });
    try {
      const result = await runCli(
        ["run", "--provider", "openai-compatible", "--base-url", server.openaiBaseUrl, "hi"],
        { cwd: ws.path, env: cleanEnv({ RESON_HOME: ws.home }) },
      );
      expect(result.code).toBe(1);
      expect(result.stderr).toContain(
        "hint: The provider asked to wait 4 d 18 h, longer than the 1 min reson waits",
      );
      expect(result.stderr).not.toMatch(/411480|411 ?480/);
    } finally {
      await server.close();
    }
  });
});
