// Shared pieces of the provider tests: the protocols under test pointed at the fake server,
// fast retry and timeout settings, and small request builders.
import { afterEach, beforeEach } from "vitest";
import { ResonError } from "../../src/core/errors.js";
import {
  type ChatRequest,
  type ChatStreamEvent,
  type CreateProviderOptions,
  createProvider,
  type Provider,
  type ProviderSettings,
  type WireName,
} from "../../src/providers/index.js";
import { type FakeModelServer, startFakeModelServer } from "../support/fake-model-server.js";

export interface ProtocolCase {
  name: string;
  protocol: "openai" | "anthropic" | "google";
  wire: WireName;
  settings(server: FakeModelServer): ProviderSettings;
}

export const OPENAI_KEY = "sk-test-openai-0123456789";
export const ANTHROPIC_KEY = "sk-ant-test-0123456789";
export const GOOGLE_KEY = "AIza-test-0123456789";

/** Every wire of every protocol: openai-compatible runs the same tests over both of its wires. */
export const PROTOCOLS: ProtocolCase[] = [
  {
    name: "openai-compatible (native wire)",
    protocol: "openai",
    wire: "native",
    settings: (server) => ({
      provider: "openai-compatible",
      baseUrl: server.openaiBaseUrl,
      model: "fake-model",
      apiKey: OPENAI_KEY,
      wire: "native",
    }),
  },
  {
    name: "openai-compatible (pi-ai wire)",
    protocol: "openai",
    wire: "pi-ai",
    settings: (server) => ({
      provider: "openai-compatible",
      baseUrl: server.openaiBaseUrl,
      model: "fake-model",
      apiKey: OPENAI_KEY,
      wire: "pi-ai",
    }),
  },
  {
    name: "anthropic",
    protocol: "anthropic",
    wire: "pi-ai",
    settings: (server) => ({
      provider: "anthropic",
      baseUrl: server.anthropicBaseUrl,
      model: "claude-sonnet-4-6",
      apiKey: ANTHROPIC_KEY,
    }),
  },
  {
    name: "google",
    protocol: "google",
    wire: "pi-ai",
    settings: (server) => ({
      provider: "google",
      baseUrl: server.googleBaseUrl,
      model: "gemini-2.5-flash",
      apiKey: GOOGLE_KEY,
    }),
  },
];

/**
 * Tiny retry delays so retry tests take milliseconds (a Retry-After still sets its own wait);
 * timeouts long enough that a busy machine never trips them by accident.
 */
export const FAST: CreateProviderOptions = {
  retry: { baseDelayMs: 5, maxDelayMs: 20, jitter: 0 },
  timeouts: { headersTimeoutMs: 5_000, idleTimeoutMs: 5_000 },
};

/** For the tests that wait for a watchdog on purpose. */
export const SHORT_TIMEOUTS: CreateProviderOptions = {
  retry: { baseDelayMs: 5, maxDelayMs: 20, jitter: 0 },
  timeouts: { headersTimeoutMs: 300, idleTimeoutMs: 300 },
};

export function ask(text: string, tools: ChatRequest["tools"] = []): ChatRequest {
  return {
    systemPrompt: "You are a test.",
    messages: [{ role: "user", content: text, timestamp: Date.now() }],
    tools,
  };
}

/** A fresh fake server per test, closed afterwards. */
export function useFakeServer(): { readonly server: FakeModelServer } {
  const holder: { server?: FakeModelServer } = {};
  beforeEach(async () => {
    holder.server = await startFakeModelServer();
  });
  afterEach(async () => {
    await holder.server?.close();
  });
  return {
    get server() {
      if (!holder.server) throw new Error("fake server not started");
      return holder.server;
    },
  };
}

export async function providerFor(
  protocol: ProtocolCase,
  server: FakeModelServer,
  options: CreateProviderOptions = FAST,
): Promise<Provider> {
  return createProvider(protocol.settings(server), options);
}

/** The error a promise rejects with (fails the test if it resolves or throws something else). */
export async function rejection(promise: Promise<unknown>): Promise<ResonError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof ResonError) return error;
    throw error;
  }
  throw new Error("expected a rejection");
}

export function collector(): { events: ChatStreamEvent[]; onEvent: (event: ChatStreamEvent) => void } {
  const events: ChatStreamEvent[] = [];
  return { events, onEvent: (event) => events.push(event) };
}
