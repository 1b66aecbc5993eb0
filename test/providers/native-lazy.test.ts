// The native wire never loads pi-ai for a call that succeeds (a CLI run against a local server
// skips its import cost); a failed call loads it to recognise a context overflow.
import { describe, expect, it, vi } from "vitest";
import { createProvider } from "../../src/providers/index.js";
import { ask, FAST, rejection, useFakeServer } from "./harness.js";

const loads = vi.hoisted(() => ({ main: 0, protocol: 0 }));

vi.mock("../../src/providers/pi.js", async (importOriginal) => {
  const actual = await importOriginal<typeof import("../../src/providers/pi.js")>();
  return {
    ...actual,
    loadPiMain: () => {
      loads.main++;
      return actual.loadPiMain();
    },
    loadPiAi: (api: Parameters<typeof actual.loadPiAi>[0]) => {
      loads.protocol++;
      return actual.loadPiAi(api);
    },
  };
});

describe("loading pi-ai from the native wire", () => {
  const fake = useFakeServer();

  it("does not happen for successful calls, and happens for a failure's overflow check", async () => {
    fake.server.enqueue({ text: "one" }, { text: "two" }, { fault: "overflow" });
    const provider = await createProvider({ provider: "ollama", baseUrl: fake.server.openaiBaseUrl }, FAST);
    expect((await provider.chat(ask("a"))).text).toBe("one");
    expect((await provider.chat(ask("b"))).text).toBe("two");
    expect(loads).toEqual({ main: 0, protocol: 0 });

    const error = await rejection(provider.chat(ask("c")));
    expect(error.code).toBe("provider_context_overflow");
    expect(loads).toEqual({ main: 1, protocol: 0 });
  });
});
