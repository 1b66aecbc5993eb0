// Stack traces of the bundled command point at the TypeScript source, not into a chunk.
// V8 calls Error.prepareStackTrace only when a stack is read (an internal error, a crash),
// and only then is that chunk's source map read. Node's own support (--enable-source-maps)
// reads and parses every map as its file loads: tens of milliseconds on every start.
import { readFileSync } from "node:fs";
import type { SourceMap } from "node:module";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/** Maps frames in the .js files of the folder at `bundleUrl` (each with its `.map` beside it). */
export function installSourceMappedStacks(bundleUrl: string): void {
  const bundleDir = fileURLToPath(bundleUrl);
  const maps = new Map<string, SourceMap | null>();

  const mapOf = (file: string): SourceMap | null => {
    let map = maps.get(file);
    if (map === undefined) {
      try {
        const { SourceMap } = process.getBuiltinModule("node:module");
        map = new SourceMap(JSON.parse(readFileSync(`${file}.map`, "utf8")));
      } catch {
        map = null; // no map: the frame stays as it is
      }
      maps.set(file, map);
    }
    return map;
  };

  const frame = (site: NodeJS.CallSite): string => {
    const text = String(site);
    const name = site.getFileName() ?? site.getScriptNameOrSourceURL();
    const line = site.getLineNumber();
    const column = site.getColumnNumber();
    if (!name || line === null || column === null) return text;
    if (!name.startsWith(bundleUrl) && !name.startsWith(bundleDir)) return text;
    const file = name.startsWith("file:") ? fileURLToPath(name) : name;
    const entry = mapOf(file)?.findEntry(line - 1, column - 1);
    if (!entry || !("originalSource" in entry)) return text;
    const source = resolve(dirname(file), entry.originalSource);
    return text.replace(
      `${name}:${line}:${column}`,
      `${source}:${entry.originalLine + 1}:${entry.originalColumn + 1}`,
    );
  };

  Error.prepareStackTrace = (error: unknown, sites: NodeJS.CallSite[]) => {
    const head = error instanceof Error ? Error.prototype.toString.call(error) : String(error);
    return head + sites.map((site) => `\n    at ${frame(site)}`).join("");
  };
}
