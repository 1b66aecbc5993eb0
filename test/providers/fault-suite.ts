// Every provider fault the fake server injects, per protocol and wire: the error code, the
// attempts and the retry events. Two test files run it (native wire / the others), in parallel.
import { expect, it, vi } from "vitest";
import type { FakeReply } from "../support/fake-model-server.js";
import {
  ask,
  collector,
  type ProtocolCase,
  providerFor,
  rejection,
  SHORT_TIMEOUTS,
  useFakeServer,
} from "./harness.js";

export function faultSuite(protocol: ProtocolCase): void {
  const fake = useFakeServer();

  it("401 fails as provider_auth_failed after one attempt, naming where the key comes from", async () => {
    fake.server.enqueue({ fault: "http", status: 401 });
    const provider = await providerFor(protocol, fake.server);
    const { events, onEvent } = collector();
    const error = await rejection(provider.chat(ask("hi"), { onEvent }));

    expect(error.code).toBe("provider_auth_failed");
    expect(error.details).toMatchObject({ status: 401, attempts: 1 });
    expect(error.hint).toMatch(/--api-key/);
    expect(fake.server.requests).toHaveLength(1);
    expect(events.filter((e) => e.type === "retry")).toEqual([]);
    const key = protocol.settings(fake.server).apiKey ?? "";
    expect(`${error.message} ${error.hint}`).not.toContain(key);
  });

  it("429 with Retry-After: 1 twice, then a reply, succeeds on the third attempt after two retry events", async () => {
    fake.server.enqueue(
      { fault: "http", status: 429, retryAfter: "1" },
      { fault: "http", status: 429, retryAfter: "1" },
      { text: "finally" },
    );
    const provider = await providerFor(protocol, fake.server);
    const { events, onEvent } = collector();
    const result = await provider.chat(ask("hi"), { onEvent });

    expect(result.text).toBe("finally");
    expect(result.attempts).toBe(3);
    const retries = events.flatMap((e) => (e.type === "retry" ? [e.notice] : []));
    expect(retries.map((n) => [n.attempt, n.maxAttempts, n.delayMs, n.error.code])).toEqual([
      [1, 4, 1000, "provider_rate_limited"],
      [2, 4, 1000, "provider_rate_limited"],
    ]);
  });

  it("429 with Retry-After: 120 fails at once as provider_rate_limited with retryAfterMs", async () => {
    fake.server.enqueue({ fault: "http", status: 429, retryAfter: "120" }, { text: "never reached" });
    const provider = await providerFor(protocol, fake.server);
    const error = await rejection(provider.chat(ask("hi")));

    expect(error.code).toBe("provider_rate_limited");
    expect(error.details).toMatchObject({ status: 429, retryAfterMs: 120_000, attempts: 1 });
    expect(error.hint).toMatch(/wait 2 min\b/);
    expect(fake.server.requests).toHaveLength(1);
  });

  it.each([500, 503, 529])("%i once, then a reply, succeeds on the second attempt", async (status) => {
    fake.server.enqueue({ fault: "http", status }, { text: "recovered" });
    const provider = await providerFor(protocol, fake.server);
    const { events, onEvent } = collector();
    const result = await provider.chat(ask("hi"), { onEvent });

    expect(result.text).toBe("recovered");
    expect(result.attempts).toBe(2);
    expect(events.find((e) => e.type === "retry")).toMatchObject({
      notice: { attempt: 1, error: { code: "provider_unavailable" } },
    });
  });

  it("a persistent 500 fails as provider_unavailable after maxAttempts", async () => {
    fake.server.enqueue(...Array.from({ length: 4 }, (): FakeReply => ({ fault: "http", status: 500 })));
    const provider = await providerFor(protocol, fake.server);
    const error = await rejection(provider.chat(ask("hi")));

    expect(error.code).toBe("provider_unavailable");
    expect(error.details).toMatchObject({ status: 500, attempts: 4 });
    expect(fake.server.requests).toHaveLength(4);
  });

  it("no response headers fail as provider_timeout, retried", async () => {
    fake.server.enqueue({ fault: "hang" }, { fault: "hang" });
    const provider = await providerFor(protocol, fake.server, {
      ...SHORT_TIMEOUTS,
      retry: { maxAttempts: 2, baseDelayMs: 5, jitter: 0 },
    });
    const error = await rejection(provider.chat(ask("hi")));

    expect(error.code).toBe("provider_timeout");
    expect(error.details).toMatchObject({ attempts: 2 });
    expect(fake.server.requests).toHaveLength(2);
  });

  it("silence after the first chunk fails as provider_timeout (idle watchdog), then recovers", async () => {
    fake.server.enqueue({ fault: "stall" }, { text: "second try" });
    const provider = await providerFor(protocol, fake.server, SHORT_TIMEOUTS);
    const { events, onEvent } = collector();
    const result = await provider.chat(ask("hi"), { onEvent });

    expect(result.text).toBe("second try");
    const retry = events.find((e) => e.type === "retry");
    expect(retry).toMatchObject({
      notice: { error: { code: "provider_timeout", details: { phase: "idle" } } },
    });
  });

  it("a socket reset mid-stream is provider_unavailable and is retried", async () => {
    fake.server.enqueue({ fault: "reset" }, { text: "after reset" });
    const provider = await providerFor(protocol, fake.server);
    const { events, onEvent } = collector();
    const result = await provider.chat(ask("hi"), { onEvent });

    expect(result.text).toBe("after reset");
    expect(result.attempts).toBe(2);
    expect(events.find((e) => e.type === "retry")).toMatchObject({
      notice: { error: { code: "provider_unavailable" } },
    });
  });

  it("a socket reset before headers is provider_unavailable", async () => {
    fake.server.enqueue(
      ...Array.from({ length: 4 }, (): FakeReply => ({ fault: "reset", beforeHeaders: true })),
    );
    const provider = await providerFor(protocol, fake.server);
    const error = await rejection(provider.chat(ask("hi")));
    expect(error.code).toBe("provider_unavailable");
    expect(error.details).toMatchObject({ attempts: 4 });
  });

  it("malformed SSE JSON fails as provider_bad_response without a retry", async () => {
    fake.server.enqueue({ fault: "malformed" }, { text: "not reached" });
    const provider = await providerFor(protocol, fake.server);
    const stdoutWrite = vi.spyOn(process.stdout, "write");
    const stderr = vi.spyOn(console, "error").mockImplementation(() => {});
    try {
      const error = await rejection(provider.chat(ask("hi")));
      expect(error.code).toBe("provider_bad_response");
      expect(error.details).toMatchObject({ attempts: 1 });
      expect(fake.server.requests).toHaveLength(1);
      expect(stdoutWrite).not.toHaveBeenCalled();
    } finally {
      stdoutWrite.mockRestore();
      stderr.mockRestore();
    }
  });

  it("a stream that ends without a finish reason fails as provider_bad_response", async () => {
    fake.server.enqueue({ fault: "truncate" }, { text: "not reached" });
    const provider = await providerFor(protocol, fake.server);
    const error = await rejection(provider.chat(ask("hi")));
    expect(error.code).toBe("provider_bad_response");
    expect(fake.server.requests).toHaveLength(1);
  });

  it("a context overflow fails as provider_context_overflow at once", async () => {
    fake.server.enqueue({ fault: "overflow" }, { text: "not reached" });
    const provider = await providerFor(protocol, fake.server);
    const error = await rejection(provider.chat(ask("hi")));

    expect(error.code).toBe("provider_context_overflow");
    expect(error.details).toMatchObject({ status: 400, attempts: 1 });
    expect(error.hint).toMatch(/context window/);
  });

  it("another 400 fails as provider_bad_response at once", async () => {
    fake.server.enqueue({ fault: "http", status: 400 }, { text: "not reached" });
    const provider = await providerFor(protocol, fake.server);
    const error = await rejection(provider.chat(ask("hi")));
    expect(error.code).toBe("provider_bad_response");
    expect(error.details).toMatchObject({ status: 400, attempts: 1 });
  });

  it("404 fails as provider_bad_response with a hint to check the model id", async () => {
    fake.server.enqueue({ fault: "http", status: 404 });
    const provider = await providerFor(protocol, fake.server);
    const error = await rejection(provider.chat(ask("hi")));
    expect(error.code).toBe("provider_bad_response");
    expect(error.hint).toMatch(/model id/);
  });

  it("an in-stream error event (overloaded) is provider_unavailable and is retried", async () => {
    fake.server.enqueue({ fault: "stream_error" }, { text: "better now" });
    const provider = await providerFor(protocol, fake.server);
    const { events, onEvent } = collector();
    const result = await provider.chat(ask("hi"), { onEvent });
    expect(result.text).toBe("better now");
    expect(events.find((e) => e.type === "retry")).toMatchObject({
      notice: { error: { code: "provider_unavailable" } },
    });
  });

  it("a content filter stop fails as provider_bad_response", async () => {
    fake.server.enqueue({ text: "I cannot", finish: "content_filter" });
    const provider = await providerFor(protocol, fake.server);
    const error = await rejection(provider.chat(ask("hi")));
    expect(error.code).toBe("provider_bad_response");
    expect(error.details).toMatchObject({ attempts: 1 });
  });

  it("an exhausted script shows up as a visible error, not a hang", async () => {
    const provider = await providerFor(protocol, fake.server);
    const error = await rejection(provider.chat(ask("hi")));
    expect(error.code).toBe("provider_unavailable");
    expect(error.message).toContain("fake model server: script exhausted");
  });
}

/** How each vendor's quota refusals must end: the code, and what the hint must say. */
const QUOTA_OUTCOMES: Record<
  ProtocolCase["protocol"],
  Record<"day" | "billing", { code: string; hint: RegExp; quota?: Record<string, unknown> }>
> = {
  openai: {
    day: {
      code: "provider_rate_limited",
      hint: /daily limit .* try again in 7 min 12 s/,
      quota: { period: "day" },
    },
    billing: { code: "provider_auth_failed", hint: /billing/ },
  },
  anthropic: {
    // Anthropic's nearest thing is the workspace's spend limit: the account is refused.
    day: { code: "provider_auth_failed", hint: /plan and billing/ },
    billing: { code: "provider_auth_failed", hint: /billing/ },
  },
  google: {
    day: {
      code: "provider_rate_limited",
      hint: /GenerateRequestsPerDayPerProjectPerModel-FreeTier, limit 250 .*midnight Pacific time/,
      quota: { id: "GenerateRequestsPerDayPerProjectPerModel-FreeTier", limit: "250", period: "day" },
    },
    billing: { code: "provider_auth_failed", hint: /billing/ },
  },
};

export function quotaSuite(protocol: ProtocolCase): void {
  const fake = useFakeServer();

  it("a per-minute quota is provider_rate_limited and retried after the wait the refusal names", async () => {
    fake.server.enqueue({ fault: "quota", quota: "minute", retryAfterS: 1 }, { text: "within quota again" });
    const provider = await providerFor(protocol, fake.server);
    const { events, onEvent } = collector();
    const result = await provider.chat(ask("hi"), { onEvent });

    expect(result.text).toBe("within quota again");
    expect(result.attempts).toBe(2);
    const retries = events.flatMap((e) => (e.type === "retry" ? [e.notice] : []));
    expect(retries.map((n) => [n.delayMs, n.error.code])).toEqual([[1000, "provider_rate_limited"]]);
  });

  it("a per-minute quota asking for a longer wait than reson's cap stops at once, saying how long", async () => {
    fake.server.enqueue({ fault: "quota", quota: "minute", retryAfterS: 120 }, { text: "not reached" });
    const provider = await providerFor(protocol, fake.server);
    const error = await rejection(provider.chat(ask("hi")));

    expect(error.code).toBe("provider_rate_limited");
    expect(error.details).toMatchObject({ status: 429, retryAfterMs: 120_000, attempts: 1 });
    expect(error.hint).toMatch(/wait 2 min\b/);
    if (protocol.protocol === "google")
      expect(error.hint).toContain("GenerateRequestsPerMinutePerProjectPerModel-FreeTier");
    expect(fake.server.requests).toHaveLength(1);
  });

  it("a daily quota stops the call at once with a hint naming it", async () => {
    fake.server.enqueue({ fault: "quota", quota: "day" }, { text: "not reached" });
    const provider = await providerFor(protocol, fake.server);
    const { events, onEvent } = collector();
    const error = await rejection(provider.chat(ask("hi"), { onEvent }));

    const expected = QUOTA_OUTCOMES[protocol.protocol].day;
    expect(error.code).toBe(expected.code);
    expect(error.hint).toMatch(expected.hint);
    expect(error.details).toMatchObject({
      attempts: 1,
      ...(expected.quota ? { quota: expected.quota } : {}),
    });
    expect(events.filter((e) => e.type === "retry")).toEqual([]);
    expect(fake.server.requests).toHaveLength(1);
  });

  it("no credit left stops the call at once as provider_auth_failed, pointing at billing", async () => {
    fake.server.enqueue({ fault: "quota", quota: "billing" }, { text: "not reached" });
    const provider = await providerFor(protocol, fake.server);
    const error = await rejection(provider.chat(ask("hi")));

    const expected = QUOTA_OUTCOMES[protocol.protocol].billing;
    expect(error.code).toBe(expected.code);
    expect(error.hint).toMatch(expected.hint);
    expect(error.details).toMatchObject({ attempts: 1 });
    expect(fake.server.requests).toHaveLength(1);
  });

  if (protocol.protocol === "google") {
    it("a free tier without quota for the model (limit 0) stops at once, saying to enable billing", async () => {
      fake.server.enqueue({ fault: "quota", quota: "zero" }, { text: "not reached" });
      const provider = await providerFor(protocol, fake.server);
      const error = await rejection(provider.chat(ask("hi")));

      expect(error.code).toBe("provider_auth_failed");
      expect(error.hint).toMatch(
        /GenerateContentInputTokensPerModelPerMinute-FreeTier, limit 0.*enable billing/,
      );
      expect(fake.server.requests).toHaveLength(1);
    });
  }
}
