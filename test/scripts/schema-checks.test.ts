// The configuration checks the CLI bundle is built with (scripts/schema-checks.mjs) give the
// same verdict as TypeBox's own check of the same schema, on valid and invalid values alike.
import { writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { Value } from "typebox/value";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
// @ts-expect-error: a build script in plain JavaScript, without declarations
import { schemaCheckModule } from "../../scripts/schema-checks.mjs";
import { ConfigSchema, DEFAULT_CONFIG, PartialConfigSchema } from "../../src/config/index.js";
import { type TempDir, tempDir } from "../support/cli.js";

type Check = (value: unknown) => boolean;

const PARTIALS: unknown[] = [
  {},
  { provider: "anthropic", model: "claude", maxIterations: 3 },
  { provider: "nobody" },
  { model: "" },
  { maxIterations: 0 },
  { maxIterations: 2.5 },
  { contextBudgetRatio: 0 },
  { contextBudgetRatio: 1 },
  { contextBudgetRatio: 1.5 },
  { retry: { maxAttempts: 2 } },
  { retry: { maxAttempts: 2, extra: true } },
  { memory: { holdout: 0.5 } },
  { memory: { holdout: 0.6 } },
  { memory: { reflect: "sometimes" } },
  { mcp: { servers: { docs: { command: "npx", args: ["-y", "server"] } } } },
  { mcp: { servers: { "bad name": { command: "npx" } } } },
  { mcp: { servers: { docs: { command: "npx", unknown: 1 } } } },
  { mcp: { servers: { docs: { type: "websocket" } } } },
  { browser: { allowPrivateHosts: ["127.0.0.1", ""] } },
  { plugins: { greeter: { anything: [1, "two"] } } },
  { unknownKey: true },
  { subagents: { maxCostUsd: 0 } },
  { subagents: { maxCostUsd: 0.01 } },
  { timeouts: { headersMs: 1000, idleMs: -1 } },
  null,
  [],
  "config",
];

const WHOLE: unknown[] = [
  DEFAULT_CONFIG,
  { ...DEFAULT_CONFIG, retry: { maxAttempts: 2 } },
  { ...DEFAULT_CONFIG, provider: "openai", model: "gpt" },
  { ...DEFAULT_CONFIG, memory: undefined },
  { ...DEFAULT_CONFIG, extra: 1 },
];

describe("generated configuration checks", () => {
  let dir: TempDir;
  let checks: { isPartialConfig: Check; isConfig: Check };
  beforeAll(async () => {
    dir = tempDir();
    // Bare specifiers do not resolve from a temporary folder: point them at this checkout's TypeBox.
    const require = createRequire(import.meta.url);
    const source = (
      schemaCheckModule({ isPartialConfig: PartialConfigSchema, isConfig: ConfigSchema }) as string
    ).replace(
      /from "(typebox\/[a-z]+)"/g,
      (_, specifier: string) => `from ${JSON.stringify(pathToFileURL(require.resolve(specifier)).href)}`,
    );
    const file = join(dir.path, "config-checks.mjs");
    writeFileSync(file, source);
    checks = await import(pathToFileURL(file).href);
  });
  afterAll(() => dir.remove());

  it("agree with TypeBox on partial configurations", () => {
    const verdicts = PARTIALS.map((value) => checks.isPartialConfig(value));
    expect(verdicts).toEqual(PARTIALS.map((value) => Value.Check(PartialConfigSchema, value)));
    // Both kinds are among them: the comparison is not of two constant answers.
    expect(verdicts).toContain(true);
    expect(verdicts).toContain(false);
  });

  it("agree with TypeBox on whole configurations", () => {
    const verdicts = WHOLE.map((value) => checks.isConfig(value));
    expect(verdicts).toEqual(WHOLE.map((value) => Value.Check(ConfigSchema, value)));
    expect(verdicts).toEqual([true, false, true, false, false]);
  });

  it("refuse a schema whose check would need TypeBox at run time", () => {
    expect(() =>
      schemaCheckModule({ isOdd: { type: "object", unevaluatedProperties: false, properties: {} } }),
    ).toThrow(/unevaluated/);
  });
});
