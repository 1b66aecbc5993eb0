// The layer rule of DESIGN.md: imports go downward only, and a module reaches another
// module only through its index.ts (core, the bottom layer of small files, is exempt).
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";

const SRC = resolve(import.meta.dirname, "../../src");

const LAYERS: Record<string, number> = {
  core: 0,
  config: 1,
  providers: 1,
  workspace: 1,
  store: 1,
  secrets: 1,
  tools: 2,
  browser: 2,
  skills: 2,
  memory: 2,
  mcp: 2,
  workspaces: 2,
  snapshots: 2,
  context: 3,
  agent: 4,
  trace: 4,
  telemetry: 4,
  permissions: 5,
  plugins: 5,
  runner: 6,
  cli: 7,
  server: 7,
  worker: 7,
  acp: 7,
  channels: 7,
};

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return path.endsWith(".ts") ? [path] : [];
  });
}

function moduleOf(src: string, file: string): string | undefined {
  const [first] = relative(src, file).split("/");
  return first && first in LAYERS ? first : undefined;
}

function importsOf(file: string): string[] {
  const text = readFileSync(file, "utf8");
  const found: string[] = [];
  for (const match of text.matchAll(/(?:from\s+|import\s*\(\s*|import\s+)["']([^"']+)["']/g))
    found.push(match[1]!);
  return found.filter((spec) => spec.startsWith("."));
}

interface Violation {
  file: string;
  spec: string;
  why: string;
}

function violations(src: string): Violation[] {
  const out: Violation[] = [];
  for (const file of sourceFiles(src)) {
    const from = moduleOf(src, file);
    for (const spec of importsOf(file)) {
      const target = resolve(dirname(file), spec).replace(/\.js$/, ".ts");
      const to = moduleOf(src, target);
      const where = relative(src, file);
      if (!from || !to || from === to) continue;
      if (LAYERS[to]! > LAYERS[from]!) {
        out.push({
          file: where,
          spec,
          why: `${from} (layer ${LAYERS[from]}) imports ${to} (layer ${LAYERS[to]})`,
        });
      }
      if (to !== "core" && relative(join(src, to), target) !== "index.ts") {
        out.push({ file: where, spec, why: `reaches into ${to} past its index.ts` });
      }
    }
  }
  return out;
}

describe("layer rule", () => {
  it("every module imports only from its own or lower layers, through their index.ts", () => {
    expect(violations(SRC)).toEqual([]);
  });

  it("flags an upward import and an import past a module's index.ts", () => {
    const src = mkdtempSync(join(tmpdir(), "reson-layers-"));
    try {
      for (const dir of ["core", "agent", "tools"]) mkdirSync(join(src, dir));
      writeFileSync(join(src, "agent", "index.ts"), "export const a = 1;\n");
      writeFileSync(join(src, "tools", "registry.ts"), "export const r = 1;\n");
      writeFileSync(join(src, "core", "bad.ts"), 'import { a } from "../agent/index.js";\n');
      writeFileSync(join(src, "agent", "deep.ts"), 'export { r } from "../tools/registry.js";\n');
      const found = violations(src).map((v) => `${v.file}: ${v.why}`);
      expect(found).toEqual([
        "agent/deep.ts: reaches into tools past its index.ts",
        "core/bad.ts: core (layer 0) imports agent (layer 4)",
      ]);
    } finally {
      rmSync(src, { recursive: true, force: true });
    }
  });

  it("every top-level folder of src is a known layer module", () => {
    const folders = readdirSync(SRC).filter((name) => statSync(join(SRC, name)).isDirectory());
    expect(folders.filter((f) => !(f in LAYERS))).toEqual([]);
  });
});
