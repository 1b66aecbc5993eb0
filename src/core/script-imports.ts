// The files a JavaScript or TypeScript program reaches when Node runs it: its entry points and
// every file their imports and require()s lead to, resolved as Node resolves them (esbuild's
// resolver, following package.json "exports", pnpm's links, tsconfig paths). Used to tie
// trust to exactly the code that runs: a plugin's copy (plugins/plugin-code.ts), and a
// project MCP server's approval (mcp/server-files.ts).
import { createRequire } from "node:module";
import { join } from "node:path";

type Esbuild = typeof import("esbuild");

/** esbuild (a dependency of reson; absent only from a copy installed without it). */
function esbuild(): Esbuild | undefined {
  try {
    return createRequire(import.meta.url)("esbuild") as Esbuild;
  } catch {
    return undefined;
  }
}

/** Files esbuild parses for imports; the rest (addons, WebAssembly, data) are reached, not read. */
const PARSED = /\.(?:[cm]?[jt]sx?|json)$/;

export interface ScriptImportOptions {
  /** Specifiers never followed (left to the program's own resolution at run time). */
  external?: (specifier: string) => boolean;
  /** Told each import met and where it led (a real path; undefined when not resolved to a file). */
  onImport?: (edge: ImportEdge) => void;
}

/** One import of a reached file: what it names, from where, and the file it resolved to. */
export interface ImportEdge {
  specifier: string;
  /** The folder it was resolved from (the importer's, a real path). */
  resolveDir: string;
  /** The file it resolved to; undefined when it did not resolve, or to no file (a builtin). */
  path: string | undefined;
  /** It did not resolve (left to fail when the program runs). */
  unresolved: boolean;
}

/** A program whose imports could not be read (a syntax error esbuild cannot get past). */
export class ScriptImportError extends Error {
  constructor(
    message: string,
    readonly file: string | undefined,
  ) {
    super(message);
  }
}

/**
 * Every file (absolute, real path) the `entryPoints` reach, themselves included; undefined when
 * esbuild is not there to tell. What cannot be resolved now is left out (an import of it fails
 * when the program runs). Throws ScriptImportError when a file cannot be parsed.
 */
export async function reachedFiles(
  dir: string,
  entryPoints: readonly string[],
  options: ScriptImportOptions = {},
): Promise<Set<string> | undefined> {
  const reached = new Set<string>();
  if (entryPoints.length === 0) return reached;
  const bundler = esbuild();
  if (!bundler) return undefined;
  const self = Symbol("resolving");
  try {
    await bundler.build({
      absWorkingDir: dir,
      entryPoints: [...entryPoints],
      bundle: true,
      write: false,
      outdir: join(dir, ".reson-import-scan"),
      platform: "node",
      format: "esm",
      target: "esnext",
      logLevel: "silent",
      plugins: [
        {
          name: "reached",
          setup(build) {
            build.onResolve({ filter: /.*/ }, async (args) => {
              if (args.pluginData === self || args.kind === "entry-point") return undefined;
              if (options.external?.(args.path)) return { path: args.path, external: true };
              const found = await build.resolve(args.path, {
                kind: args.kind,
                importer: args.importer,
                resolveDir: args.resolveDir,
                pluginData: self,
              });
              const unresolved = found.errors.length > 0;
              options.onImport?.({
                specifier: args.path,
                resolveDir: args.resolveDir,
                path: unresolved || found.external || found.namespace !== "file" ? undefined : found.path,
                unresolved,
              });
              if (unresolved) return { path: args.path, external: true };
              return {
                path: found.path,
                external: found.external,
                namespace: found.namespace,
                sideEffects: found.sideEffects,
              };
            });
            build.onLoad({ filter: /.*/, namespace: "file" }, (args) => {
              reached.add(args.path);
              return PARSED.test(args.path) ? undefined : { contents: "", loader: "empty" };
            });
          },
        },
      ],
    });
  } catch (error) {
    const failure = error as { errors?: { text: string; location?: { file: string } | null }[] };
    const first = failure.errors?.[0];
    throw new ScriptImportError(first?.text ?? (error as Error).message, first?.location?.file ?? undefined);
  }
  return reached;
}
