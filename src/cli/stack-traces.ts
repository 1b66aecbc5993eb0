// Stack traces of the bundled command point at the TypeScript source, not into a chunk, and
// name the functions as the source does (the bundle's own names are minified). V8 calls
// Error.prepareStackTrace only when a stack is read (an internal error, a crash), and only
// then are that chunk's source map and text read. Node's own support (--enable-source-maps)
// reads and parses every map as its file loads: tens of milliseconds on every start.
import { readFileSync } from "node:fs";
import type { SourceMap } from "node:module";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/** A bundle file's source map and its lines, read at the first frame in it. */
interface Chunk {
  map: SourceMap;
  lines: string[];
  /** Source names of classes, by bundle name, as they are looked up. */
  classes: Map<string, string | undefined>;
}

// Where a function's own name is, from where V8 says the function starts: the keyword of
// `function f(` or `async function* f(`, or the name itself for a method or `get x()`.
const FUNCTION_HEAD = /^(?:async\s*)?(?:function\s*\*?\s*)?(?:(?:static|get|set)\s+)?\*?\s*([\w$]+)/;

// V8's call sites, with the position of the function each frame is in (not in @types/node).
type Site = NodeJS.CallSite & {
  getEnclosingLineNumber?(): number | null;
  getEnclosingColumnNumber?(): number | null;
};

/** Maps frames in the .js files of the folder at `bundleUrl` (each with its `.map` beside it). */
export function installSourceMappedStacks(bundleUrl: string): void {
  const bundleDir = fileURLToPath(bundleUrl);
  const chunks = new Map<string, Chunk | null>();

  const chunkOf = (file: string): Chunk | null => {
    let chunk = chunks.get(file);
    if (chunk === undefined) {
      try {
        const { SourceMap } = process.getBuiltinModule("node:module");
        chunk = {
          map: new SourceMap(JSON.parse(readFileSync(`${file}.map`, "utf8"))),
          lines: readFileSync(file, "latin1").split("\n"),
          classes: new Map(),
        };
      } catch {
        chunk = null; // no map: the frame stays as it is
      }
      chunks.set(file, chunk);
    }
    return chunk;
  };

  /** The source's name of the function a frame is in, if the map has one. */
  const sourceName = (chunk: Chunk, site: Site): string | undefined => {
    const line = site.getEnclosingLineNumber?.();
    const column = site.getEnclosingColumnNumber?.();
    if (!line || !column) return undefined;
    const head = FUNCTION_HEAD.exec(chunk.lines[line - 1]?.slice(column - 1) ?? "");
    if (!head?.[1]) return undefined;
    const at = column - 1 + head[0].length - head[1].length;
    const entry = chunk.map.findEntry(line - 1, at);
    return "name" in entry && typeof entry.name === "string" ? entry.name : undefined;
  };

  /** The source's name of a class the bundle calls `bundled`: where `class X` or `X=class` is. */
  const className = (chunk: Chunk, bundled: string): string | undefined => {
    if (chunk.classes.has(bundled)) return chunk.classes.get(bundled);
    let found: string | undefined;
    const escaped = bundled.replace(/\$/g, "\\$");
    const declaration = new RegExp(`\\bclass ${escaped}[ {]|[^\\w$.]${escaped}=class\\b`);
    for (let line = 0; line < chunk.lines.length && found === undefined; line++) {
      const match = declaration.exec(chunk.lines[line] ?? "");
      if (!match) continue;
      const at = match.index + (match[0].startsWith("class ") ? 6 : 1);
      const entry = chunk.map.findEntry(line, at);
      if ("name" in entry && typeof entry.name === "string") found = entry.name;
    }
    chunk.classes.set(bundled, found);
    return found;
  };

  const frame = (site: Site): string => {
    let text = String(site);
    const name = site.getFileName() ?? site.getScriptNameOrSourceURL();
    const line = site.getLineNumber();
    const column = site.getColumnNumber();
    if (!name || line === null || column === null) return text;
    if (!name.startsWith(bundleUrl) && !name.startsWith(bundleDir)) return text;
    const file = name.startsWith("file:") ? fileURLToPath(name) : name;
    const chunk = chunkOf(file);
    const entry = chunk?.map.findEntry(line - 1, column - 1);
    if (!chunk || !entry || !("originalSource" in entry)) return text;
    const bundled = site.getFunctionName();
    const original = bundled ? sourceName(chunk, site) : undefined;
    if (bundled && original && original !== bundled) text = renamed(text, bundled, original);
    const type = site.getTypeName();
    const typeName = type && text.startsWith(`${type}.`) ? className(chunk, type) : undefined;
    if (type && typeName && typeName !== type) text = typeName + text.slice(type.length);
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

/** `text` with the first `bundled` that is a whole name (after a space or a dot) as `original`. */
function renamed(text: string, bundled: string, original: string): string {
  const escaped = bundled.replace(/\$/g, "\\$");
  return text.replace(new RegExp(`(^|[ .])${escaped}(?= |$)`), `$1${original}`);
}
