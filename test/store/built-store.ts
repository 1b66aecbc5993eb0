// The store as plain JavaScript for child processes (Node 20 cannot run TypeScript): src/core,
// src/store and the test fixtures transpiled file by file into node_modules/.cache, where the
// drivers resolve from the project's node_modules. Always the current source, no build first.
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { dirname, join, relative, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import ts from "typescript";

const ROOT = resolve(import.meta.dirname, "../..");
const SOURCES = ["src/core", "src/store", "test/store/fixtures.ts"];

async function sources(path: string): Promise<string[]> {
  if (path.endsWith(".ts")) return [path];
  const entries = await readdir(path, { withFileTypes: true });
  const nested = await Promise.all(
    entries.map((entry) => {
      const child = join(path, entry.name);
      if (entry.isDirectory()) return sources(child);
      return Promise.resolve(entry.name.endsWith(".ts") ? [child] : []);
    }),
  );
  return nested.flat();
}

export interface BuiltStore {
  /** file: URL of the built src/store/index.js, for `import()` in a child process. */
  indexUrl: string;
  /** file: URL of the built test/store/fixtures.js. */
  fixturesUrl: string;
  cleanup(): Promise<void>;
}

export async function buildStore(): Promise<BuiltStore> {
  const cache = join(ROOT, "node_modules/.cache");
  await mkdir(cache, { recursive: true });
  const out = await mkdtemp(join(cache, "reson-store-test-"));
  await writeFile(join(out, "package.json"), '{ "type": "module" }\n');
  for (const source of SOURCES) {
    for (const file of await sources(join(ROOT, source))) {
      const { outputText } = ts.transpileModule(await readFile(file, "utf8"), {
        compilerOptions: {
          module: ts.ModuleKind.ESNext,
          target: ts.ScriptTarget.ES2022,
          verbatimModuleSyntax: true,
        },
        fileName: file,
      });
      const target = join(out, relative(ROOT, file)).replace(/\.ts$/, ".js");
      await mkdir(dirname(target), { recursive: true });
      await writeFile(target, outputText);
    }
  }
  return {
    indexUrl: pathToFileURL(join(out, "src/store/index.js")).href,
    fixturesUrl: pathToFileURL(join(out, "test/store/fixtures.js")).href,
    cleanup: () => rm(out, { recursive: true, force: true }),
  };
}
