// A plugin's `import { definePlugin } from "reson"` (or `require("reson")`) finds the reson
// that loads it. A folder plugin lies outside any node_modules that holds reson, so Node alone
// cannot resolve the name; a plugin that brings its own copy in its node_modules keeps it.
import * as nodeModule from "node:module";

/** The package's library entry, from src/plugins, dist/plugins or the CLI bundle alike. */
const LIBRARY_ENTRY = new URL("../../dist/index.js", import.meta.url).href;

let registered = false;

function notFound(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return code === "ERR_MODULE_NOT_FOUND" || code === "MODULE_NOT_FOUND";
}

/** Lets plugin modules resolve "reson" to this reson's library; idempotent, once per process. */
export function resolveResonForPlugins(): void {
  if (registered) return;
  registered = true;
  // Node 22.15 and later (reson's floor); kept as a check for runtimes that lack it.
  if (typeof nodeModule.registerHooks !== "function") return;
  nodeModule.registerHooks({
    resolve(specifier, context, nextResolve) {
      if (specifier !== "reson") return nextResolve(specifier, context);
      try {
        return nextResolve(specifier, context);
      } catch (error) {
        if (!notFound(error)) throw error;
        return { url: LIBRARY_ENTRY, format: "module", shortCircuit: true };
      }
    },
  });
}
