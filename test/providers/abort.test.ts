import { getEventListeners } from "node:events";
import { describe, expect, it } from "vitest";
import type { ChatStreamEvent } from "../../src/providers/index.js";
import type { FakeReply } from "../support/fake-model-server.js";
import { ask, PROTOCOLS, providerFor, rejection, useFakeServer } from "./harness.js";

const LONG_TEXT = Array.from({ length: 40 }, (_, i) => `word${i}`).join(" ");

describe.each(PROTOCOLS)("cancelling over $name", (protocol) => {
  const fake = useFakeServer();

  // Each test below would take 8 s or more if the abort were not honoured at once; the test
  // timeout (5 s) is what proves promptness.
  it("an abort mid-stream ends the call with `aborted`", { timeout: 5_000 }, async () => {
    fake.server.enqueue({ text: LONG_TEXT, chunkDelayMs: 200 });
    const provider = await providerFor(protocol, fake.server);
    const controller = new AbortController();
    const onEvent = (event: ChatStreamEvent) => {
      if (event.type === "text_delta") controller.abort();
    };
    const error = await rejection(provider.chat(ask("hi"), { signal: controller.signal, onEvent }));
    expect(error.code).toBe("aborted");
  });

  it("an abort during a retry wait ends the call with `aborted`", { timeout: 5_000 }, async () => {
    fake.server.enqueue({ fault: "http", status: 429, retryAfter: "30" }, { text: "too late" });
    const provider = await providerFor(protocol, fake.server);
    const controller = new AbortController();
    const onEvent = (event: ChatStreamEvent) => {
      if (event.type === "retry") controller.abort();
    };
    const error = await rejection(provider.chat(ask("hi"), { signal: controller.signal, onEvent }));
    expect(error.code).toBe("aborted");
    expect(fake.server.requests).toHaveLength(1);
  });

  it("an abort while waiting for headers ends the call with `aborted`", { timeout: 5_000 }, async () => {
    fake.server.enqueue({ fault: "hang" });
    const provider = await providerFor(protocol, fake.server, { timeouts: { headersTimeoutMs: 60_000 } });
    const controller = new AbortController();
    const call = provider.chat(ask("hi"), { signal: controller.signal });
    setTimeout(() => controller.abort(), 50);
    const error = await rejection(call);
    expect(error.code).toBe("aborted");
  });

  it("an already aborted signal sends nothing", async () => {
    const provider = await providerFor(protocol, fake.server);
    const error = await rejection(provider.chat(ask("hi"), { signal: AbortSignal.abort() }));
    expect(error.code).toBe("aborted");
    expect(fake.server.requests).toHaveLength(0);
  });

  it("an error thrown by onEvent reaches the caller as it is", async () => {
    fake.server.enqueue({ text: LONG_TEXT });
    const provider = await providerFor(protocol, fake.server);
    const boom = new Error("listener failed");
    const call = provider.chat(ask("hi"), {
      onEvent: () => {
        throw boom;
      },
    });
    await expect(call).rejects.toBe(boom);
  });
});

describe.each(PROTOCOLS.filter((p) => p.protocol === "openai"))(
  "a long run on one signal over $name",
  (protocol) => {
    const fake = useFakeServer();

    it("200 calls sharing a signal leave no abort listener behind and emit no warning", async () => {
      const warnings: Error[] = [];
      const onWarning = (warning: Error) => warnings.push(warning);
      process.on("warning", onWarning);
      try {
        const steps = 200;
        fake.server.enqueue(
          { fault: "http", status: 503 },
          ...Array.from({ length: steps }, (): FakeReply => ({ text: "step done" })),
        );
        const provider = await providerFor(protocol, fake.server);
        const controller = new AbortController();
        for (let i = 0; i < steps; i++) {
          const result = await provider.chat(ask(`step ${i}`), { signal: controller.signal });
          expect(result.text).toBe("step done");
        }
        expect(getEventListeners(controller.signal, "abort")).toHaveLength(0);
        await new Promise((resolve) => setImmediate(resolve));
        expect(warnings.map((w) => w.name)).not.toContain("MaxListenersExceededWarning");
      } finally {
        process.off("warning", onWarning);
      }
    });
  },
);
