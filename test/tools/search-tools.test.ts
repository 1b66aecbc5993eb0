import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Workspace } from "../../src/workspace/index.js";
import { skipWithout } from "../support/requirements.js";
import { type Harness, makeHarness } from "./harness.js";

let h: Harness;

beforeAll(async () => {
  h = await makeHarness();
  await h.layout.write({
    ".gitignore": "dist/\n*.log\nnode_modules/\n",
    "README.md": "# Demo\nTODO: write docs\n",
    "src/main.ts": 'import { load } from "./load";\n// TODO: handle errors\nload();\n',
    "src/load.ts": "export function load() {\n  return fetchConfig();\n}\n",
    "src/util/strings.ts": "export const todo = 'lowercase todo';\n",
    "src/.gitignore": "generated.ts\n",
    "src/generated.ts": "// TODO generated\n",
    "src/notes.log": "TODO ignored by the root's *.log\n",
    "dist/main.js": "// TODO built\n",
    "debug.log": "TODO in a log\n",
    "node_modules/pkg/index.js": "// TODO dependency\n",
    ".git/HEAD": "TODO ref\n",
    ".config/settings.json": '{ "todo": "TODO hidden" }\n',
    "bin.dat": Buffer.from("TODO\0binary"),
  });
});

afterAll(async () => {
  await h.cleanup();
});

describe("glob", () => {
  it("finds files at any depth with **, sorted by path, skipping ignored ones", async () => {
    const result = await h.call("glob", { pattern: "**/*.ts" });
    expect(result.content).toBe("src/load.ts\nsrc/main.ts\nsrc/util/strings.ts");
    expect(result.longTermMemory).toBe("glob **/*.ts: 3 files");
  });

  it("matches one level with *, relative to path", async () => {
    expect((await h.call("glob", { pattern: "*.ts", path: "src" })).content).toBe("src/load.ts\nsrc/main.ts");
    expect((await h.call("glob", { pattern: "*.md" })).content).toBe("README.md");
  });

  it("includes hidden files and never .git", async () => {
    const result = await h.call("glob", { pattern: "**/*" });
    expect(result.content).toContain(".config/settings.json");
    expect(result.content).not.toContain(".git/");
  });

  it("says when nothing matches", async () => {
    const result = await h.call("glob", { pattern: "**/*.py" });
    expect(result).toMatchObject({ ok: true, content: 'No files match "**/*.py" under ..' });
  });

  it("fails for a missing path", async () => {
    expect((await h.call("glob", { pattern: "*", path: "nope" })).error?.code).toBe("file_not_found");
  });

  it("answers a pattern ending in backslashes (picomatch alone never returns on it)", async () => {
    const result = await h.call("glob", { pattern: "**/x\\\\\\\\" });
    expect(result).toMatchObject({ ok: true });
    expect(result.content).toMatch(/^No files match/);
  });
});

describe.each(["auto", "js"] as const)("grep (engine %s)", (engine) => {
  const grep = (args: Record<string, unknown>) => h.variant({ grepEngine: engine })("grep", args);

  it("prints path:line: text, sorted by path, skipping ignored, .git and binary files", async () => {
    const result = await grep({ pattern: "TODO" });
    expect(result.content).toBe(
      [
        '.config/settings.json:1: { "todo": "TODO hidden" }',
        "README.md:2: TODO: write docs",
        "src/main.ts:2: // TODO: handle errors",
      ].join("\n"),
    );
    expect(result.longTermMemory).toBe("grep TODO: 3 matches in 3 files");
  });

  it("searches one folder or one file", async () => {
    expect((await grep({ pattern: "load", path: "src/load.ts" })).content).toBe(
      "src/load.ts:1: export function load() {",
    );
    expect((await grep({ pattern: "return", path: "src" })).content).toBe(
      "src/load.ts:2:   return fetchConfig();",
    );
  });

  it("searches an ignored folder when pointed at it", async () => {
    expect((await grep({ pattern: "TODO", path: "node_modules" })).content).toBe(
      "node_modules/pkg/index.js:1: // TODO dependency",
    );
    expect((await grep({ pattern: "TODO", path: "dist/main.js" })).content).toBe(
      "dist/main.js:1: // TODO built",
    );
  });

  it("filters files with a glob, rg-style", async () => {
    expect((await grep({ pattern: "TODO|todo", glob: "*.ts" })).content).toBe(
      "src/main.ts:2: // TODO: handle errors\nsrc/util/strings.ts:1: export const todo = 'lowercase todo';",
    );
    expect((await grep({ pattern: "TODO", glob: "!*.md" })).content).toBe(
      '.config/settings.json:1: { "todo": "TODO hidden" }\nsrc/main.ts:2: // TODO: handle errors',
    );
  });

  it("ignores case with a leading (?i)", async () => {
    const result = await grep({ pattern: "(?i)lowercase TODO" });
    expect(result.content).toBe("src/util/strings.ts:1: export const todo = 'lowercase todo';");
  });

  it("supports look-behind (ripgrep falls back to the JS engine)", async () => {
    const result = await grep({ pattern: "(?<=return )fetch\\w+" });
    expect(result.content).toBe("src/load.ts:2:   return fetchConfig();");
  });

  it("reports an invalid regular expression as invalid arguments", async () => {
    const result = await grep({ pattern: "handle(errors" });
    expect(result.error?.code).toBe("tool_invalid_arguments");
    expect(result.error?.message).toContain("handle(errors");
    expect(result.error?.hint).toContain("backslash");
  });

  it("says when nothing matches", async () => {
    expect((await grep({ pattern: "no such text anywhere" })).content).toBe(
      'No matches for "no such text anywhere" in ..',
    );
  });
});

const noRipgrep = await skipWithout("ripgrep", "grep engines");

describe("grep engines", () => {
  it.skipIf(noRipgrep)("uses ripgrep for auto when it is installed, the JS scan for js", async () => {
    expect((await h.workspace.search("TODO")).engine).toBe("ripgrep");
    expect((await h.workspace.search("TODO", { engine: "js" })).engine).toBe("js");
  });

  it("falls back to the JS scan when ripgrep is switched off", async () => {
    const noRg = await Workspace.open(h.layout.root, { ripgrep: false });
    expect((await noRg.search("TODO")).engine).toBe("js");
  });

  it("caps the number of matches and says how to narrow", async () => {
    await h.layout.write({ "many.txt": "hit\n".repeat(700) });
    for (const engine of ["auto", "js"] as const) {
      const result = await h.variant({ grepEngine: engine })("grep", { pattern: "hit", path: "many.txt" });
      const lines = result.content.split("\n");
      expect(lines).toHaveLength(501);
      expect(lines[499]).toBe("many.txt:500: hit");
      expect(lines[500]).toContain("Showing the first 500 matches");
      expect(result.meta.truncated).toBe(true);
    }
  });
});
