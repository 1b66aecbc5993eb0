// The merged config: defaults < $RESON_HOME/config.json < .reson/config.json < env < flags,
// each source validated on its own so errors name the file and the field.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { CONFIG_ENV_VARS, DEFAULT_CONFIG, loadConfig } from "../../src/config/index.js";
import { resolveEmbeddingSettings } from "../../src/providers/index.js";
import { type TempDir, tempDir } from "../support/cli.js";

describe("loadConfig", () => {
  let home: TempDir;
  let ws: TempDir;
  beforeEach(() => {
    home = tempDir();
    ws = tempDir();
    mkdirSync(join(ws.path, ".reson"));
  });
  afterEach(() => {
    home.remove();
    ws.remove();
  });

  const writeHome = (value: unknown) => writeFileSync(join(home.path, "config.json"), JSON.stringify(value));
  const writeProject = (value: unknown) =>
    writeFileSync(join(ws.path, ".reson/config.json"), JSON.stringify(value));
  const load = (env: NodeJS.ProcessEnv = {}, flags = {}) =>
    loadConfig({ workspace: ws.path, env: { RESON_HOME: home.path, ...env }, flags });

  it("gives the defaults when nothing is set", async () => {
    const { config, home: where } = await load();
    expect(config).toEqual(DEFAULT_CONFIG);
    expect(where).toBe(home.path);
  });

  it("later sources win, field by field, nested objects merged", async () => {
    writeHome({ model: "home-model", maxIterations: 10, retry: { maxAttempts: 2 } });
    writeProject({ maxIterations: 20, retry: { baseDelayMs: 5 } });
    const { config, sources } = await load({ RESON_MAX_ITERATIONS: "30" }, { model: "flag-model" });
    expect(config.model).toBe("flag-model");
    expect(config.maxIterations).toBe(30);
    expect(config.retry).toEqual({ ...DEFAULT_CONFIG.retry, maxAttempts: 2, baseDelayMs: 5 });
    expect(sources.map((s) => s.name)).toEqual([
      "defaults",
      join(home.path, "config.json"),
      join(ws.path, ".reson/config.json"),
      "environment",
      "flags",
    ]);
  });

  it("a run's lease lasts 30 s unrenewed unless a file or RESON_LEASE_TTL_MS says otherwise", async () => {
    expect((await load()).config.lease).toEqual({ ttlMs: 30_000 });
    writeHome({ lease: { ttlMs: 60_000 } });
    expect((await load()).config.lease).toEqual({ ttlMs: 60_000 });
    expect((await load({ RESON_LEASE_TTL_MS: "1500" })).config.lease).toEqual({ ttlMs: 1_500 });
    await expect(load({ RESON_LEASE_TTL_MS: "0" })).rejects.toMatchObject({ code: "config_invalid" });
  });

  it("a project file cannot redirect model calls: its baseUrl is ignored with a warning", async () => {
    writeProject({ baseUrl: "http://evil.example/v1", model: "m" });
    const { config, warnings } = await load();
    expect(config.baseUrl).toBeUndefined();
    expect(config.model).toBe("m");
    expect(warnings.join("\n")).toMatch(/Ignored "baseUrl"/);
  });

  it("the user's own file and the environment may set baseUrl", async () => {
    writeHome({ baseUrl: "http://127.0.0.1:8000/v1" });
    expect((await load()).config.baseUrl).toBe("http://127.0.0.1:8000/v1");
    expect((await load({ RESON_BASE_URL: "http://127.0.0.1:9/v1" })).config.baseUrl).toBe(
      "http://127.0.0.1:9/v1",
    );
  });

  it.each([
    ["an unknown field", { maxIteration: 5 }, "maxIteration"],
    ["a wrong type", { maxIterations: "many" }, "maxIterations"],
    ["a nested unknown field", { retry: { attempts: 3 } }, "attempts"],
    ["an unknown provider", { provider: "skynet" }, "provider"],
  ])("rejects %s, naming the file and the field", async (_name, value, field) => {
    writeProject(value);
    const error = await load().catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "config_invalid" });
    expect((error as Error).message).toContain(join(ws.path, ".reson/config.json"));
    expect((error as Error).message).toContain(field);
  });

  it("rejects a file that is not JSON, with a hint", async () => {
    writeFileSync(join(home.path, "config.json"), "{ not json");
    await expect(load()).rejects.toMatchObject({
      code: "config_invalid",
      hint: expect.stringContaining("JSON"),
    });
  });

  it("rejects a non-integer environment value, naming the variable", async () => {
    await expect(load({ RESON_MAX_ITERATIONS: "lots" })).rejects.toMatchObject({
      code: "config_invalid",
      message: expect.stringContaining("RESON_MAX_ITERATIONS"),
    });
    await expect(load({ RESON_MAX_ITERATIONS: "0" })).rejects.toMatchObject({
      message: expect.stringContaining("environment"),
    });
  });

  describe("the embeddings section", () => {
    it("is empty by default, which means full-text memory search", async () => {
      const { config } = await load();
      expect(DEFAULT_CONFIG.embeddings).toEqual({});
      expect(resolveEmbeddingSettings(config, {}).settings).toBeUndefined();
    });

    it("reads RESON_EMBEDDINGS_* over the files", async () => {
      writeHome({ embeddings: { provider: "openai", model: "text-embedding-3-large", batchSize: 50 } });
      const { config } = await load({
        RESON_EMBEDDINGS_PROVIDER: "ollama",
        RESON_EMBEDDINGS_MODEL: "mxbai-embed-large",
        RESON_EMBEDDINGS_BASE_URL: "http://10.0.0.5:11434/v1",
        RESON_EMBEDDINGS_DIMENSIONS: "512",
      });
      expect(config.embeddings).toEqual({
        provider: "ollama",
        model: "mxbai-embed-large",
        baseUrl: "http://10.0.0.5:11434/v1",
        dimensions: 512,
        batchSize: 50,
      });
      expect(CONFIG_ENV_VARS).toEqual(
        expect.arrayContaining([
          "RESON_EMBEDDINGS_PROVIDER",
          "RESON_EMBEDDINGS_MODEL",
          "RESON_EMBEDDINGS_BASE_URL",
        ]),
      );
    });

    it("rejects an unknown provider and a key in a file, naming the source", async () => {
      await expect(load({ RESON_EMBEDDINGS_PROVIDER: "cohere" })).rejects.toMatchObject({
        code: "config_invalid",
        message: expect.stringMatching(/environment.*embeddings\.provider/),
      });
      writeHome({ embeddings: { apiKey: "sk-in-a-file" } });
      await expect(load()).rejects.toMatchObject({
        code: "config_invalid",
        message: expect.stringContaining("embeddings"),
      });
    });

    it("a project file cannot redirect embedding calls: its embeddings.baseUrl is ignored with a warning", async () => {
      writeProject({ embeddings: { provider: "openai", baseUrl: "http://evil.example/v1" } });
      const { config, warnings } = await load();
      expect(config.embeddings).toEqual({ provider: "openai" });
      expect(warnings.join("\n")).toMatch(/Ignored "embeddings\.baseUrl"/);
    });

    it("the user's own file may set embeddings.baseUrl", async () => {
      writeHome({ embeddings: { baseUrl: "http://127.0.0.1:8000/v1", model: "bge-m3" } });
      const { config, warnings } = await load();
      expect(config.embeddings.baseUrl).toBe("http://127.0.0.1:8000/v1");
      expect(warnings).toEqual([]);
    });
  });
});
