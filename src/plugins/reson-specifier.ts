// A plugin's `import { definePlugin } from "reson"` (or `require("reson")`) finds the reson
// that loads it. A folder plugin lies outside any node_modules that holds reson, so Node alone
// cannot resolve the name; a user plugin that brings its own copy in its node_modules keeps it.
// Code loaded from a trusted copy (plugin-code.ts) resolves only inside that copy: a name it
// did not reach when trusted is not looked for above it, in folders a run's commands may change.
import * as nodeModule from "node:module";
import { pathToFileURL } from "node:url";

/** The package's library entry, from src/plugins, dist/plugins or the CLI bundle alike. */
const LIBRARY_ENTRY = new URL("../../dist/index.js", import.meta.url).href;

let registered = false;
/** file: URL prefixes (ending in "/") of the trusted copies plugins load from. */
const sealed: string[] = [];

function notFound(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return code === "ERR_MODULE_NOT_FOUND" || code === "MODULE_NOT_FOUND";
}

function outsideCopy(specifier: string, parentURL: string, copy: string): Error {
  const error = new Error(
    `Cannot find module "${specifier}" imported from ${parentURL}: it is not in the copy of the plugin's code reson trusted (${copy}); list it in the plugin's package.json dependencies, install it, and trust the plugin again`,
  ) as NodeJS.ErrnoException;
  error.code = "ERR_MODULE_NOT_FOUND";
  return error;
}

/** Lets plugin modules resolve "reson" to this reson's library; idempotent, once per process. */
export function resolveResonForPlugins(): void {
  if (registered) return;
  registered = true;
  // Node 22.15 and later (reson's floor); kept as a check for runtimes that lack it.
  if (typeof nodeModule.registerHooks !== "function") return;
  nodeModule.registerHooks({
    resolve(specifier, context, nextResolve) {
      const parent = context.parentURL;
      const copy = parent === undefined ? undefined : sealed.find((prefix) => parent.startsWith(prefix));
      if (specifier === "reson") {
        // A trusted copy holds no reson of its own: the plugin gets the reson that loads it.
        if (copy) return { url: LIBRARY_ENTRY, format: "module", shortCircuit: true };
        try {
          return nextResolve(specifier, context);
        } catch (error) {
          if (!notFound(error)) throw error;
        }
        return { url: LIBRARY_ENTRY, format: "module", shortCircuit: true };
      }
      const found = nextResolve(specifier, context);
      if (!copy || !found.url.startsWith("file:") || found.url.startsWith(copy)) return found;
      throw outsideCopy(specifier, parent ?? "", copy);
    },
  });
}

/** Keeps what modules in `dir` (a trusted copy, real path) import inside it. */
export function sealPluginCode(dir: string): void {
  resolveResonForPlugins();
  const prefix = `${pathToFileURL(dir).href}/`;
  if (!sealed.includes(prefix)) sealed.push(prefix);
}
