// Per-test surroundings of an end-to-end CLI test: a fresh fake model server, an empty
// workspace and an empty RESON_HOME, removed again after each test.
import { afterEach, beforeEach } from "vitest";
import { type TempDir, tempDir } from "./cli.js";
import { type FakeModelServer, startFakeModelServer } from "./fake-model-server.js";

export interface CliFixture {
  readonly server: FakeModelServer;
  readonly ws: TempDir;
  readonly home: TempDir;
}

/** The flags that point `reson run` (or `reson`) at the fake model server's OpenAI endpoint. */
export function fakeModelArgs(server: FakeModelServer, model = "fake-model"): string[] {
  return ["--provider", "openai-compatible", "--base-url", server.openaiBaseUrl, "--model", model];
}

/** Call inside a describe block; the fields are set before each of its tests. */
export function useCliFixture(): CliFixture {
  const fixture = {} as { server: FakeModelServer; ws: TempDir; home: TempDir };
  beforeEach(async () => {
    fixture.server = await startFakeModelServer();
    fixture.ws = tempDir();
    fixture.home = tempDir();
  });
  afterEach(async () => {
    await fixture.server.close();
    fixture.ws.remove();
    fixture.home.remove();
  });
  return fixture;
}
