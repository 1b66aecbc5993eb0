// A minified bundle's stack frames, mapped back: the TypeScript file and line, and the
// function's and class's names as the source wrote them (src/cli/stack-traces.ts).
import { spawnSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { build } from "esbuild";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type TempDir, tempDir } from "../support/cli.js";

const STACK_TRACES = resolve(import.meta.dirname, "../../src/cli/stack-traces.ts");

describe("stack traces of a minified bundle", () => {
  let dir: TempDir;
  beforeAll(async () => {
    dir = tempDir();
    mkdirSync(join(dir.path, "src"));
    writeFileSync(
      join(dir.path, "src", "widgets.ts"),
      [
        "export class WidgetFactory {",
        "  constructor(private readonly size: number) {}",
        "  assemble(parts: string[]): string {",
        '    if (parts.length > this.size) throw new RangeError("too many parts: " + parts.length);',
        '    return parts.join("-");',
        "  }",
        "}",
        "export async function buildWidget(count: number): Promise<string> {",
        "  await Promise.resolve();",
        "  const factory = new WidgetFactory(2);",
        '  return factory.assemble(Array.from({ length: count }, (_, i) => "part" + i));',
        "}",
        "",
      ].join("\n"),
    );
    await build({
      entryPoints: { widgets: join(dir.path, "src", "widgets.ts"), stacks: STACK_TRACES },
      outdir: join(dir.path, "bundle"),
      bundle: true,
      format: "cjs",
      platform: "node",
      sourcemap: "linked",
      minify: true,
      logLevel: "silent",
    });
  });
  afterAll(() => dir.remove());

  it("name the source's functions and classes at their source lines", () => {
    const bundle = `${pathToFileURL(join(dir.path, "bundle")).href}/`;
    const script = `
      const { installSourceMappedStacks } = require(${JSON.stringify(join(dir.path, "bundle", "stacks.js"))});
      installSourceMappedStacks(${JSON.stringify(bundle)});
      require(${JSON.stringify(join(dir.path, "bundle", "widgets.js"))}).buildWidget(3).catch((e) => console.log(e.stack));
    `;
    const result = spawnSync(process.execPath, ["-e", script], { encoding: "utf8" });
    expect(result.stderr).toBe("");
    const widgets = join(dir.path, "src", "widgets.ts").replaceAll("\\", "/");
    expect(result.stdout).toContain("RangeError: too many parts: 3");
    expect(result.stdout).toContain(`at WidgetFactory.assemble (${widgets}:4:`);
    // Called through the module's exports object.
    expect(result.stdout).toContain(`at Object.buildWidget (${widgets}:11:`);
    expect(result.stdout).not.toMatch(/bundle\/widgets\.js:\d+/);
  });
});
