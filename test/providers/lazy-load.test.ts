// `reson --version` must not pay for loading pi-ai: inside src/providers only pi.ts may load it
// (with dynamic imports); every other file, the native wire's included, imports its types only.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const dir = join(import.meta.dirname, "../../src/providers");
const files = readdirSync(dir, { recursive: true, encoding: "utf8" }).filter((name) => name.endsWith(".ts"));

describe("loading pi-ai", () => {
  it.each(files)("%s imports only types from pi-ai", (name) => {
    const source = readFileSync(join(dir, name), "utf8");
    const valueImports = source.match(
      /^(?:import|export)\s+(?!type\b)[^;]*?from\s+["']@mariozechner\/pi-ai[^"']*["']/gm,
    );
    expect(valueImports ?? []).toEqual([]);
    // import(), or importEsm (core/esm-import.ts), which the CLI's bundle needs for it.
    const dynamic =
      source.match(/(?<!typeof )(?:import|importEsm<[^>]*>)\(\s*["']@mariozechner\/pi-ai/g) ?? [];
    if (name === "pi.ts") expect(dynamic.length).toBeGreaterThan(0);
    else expect(dynamic).toEqual([]);
  });
});
