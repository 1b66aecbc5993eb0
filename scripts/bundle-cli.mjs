// Bundles the reson command into dist/cli-bundle/ (run after tsc; `npm run build` does both).
// One process loading ~1,000 ES modules (TypeBox alone ships 680) spent most of its start-up
// resolving and compiling them; the bundle is two files:
//   launcher.cjs  main.ts (--version, --help, dispatch) and what bin/reson.js needs; small.
//   commands.cjs  every subcommand, as one function expression (the module wrapper is in the
//                 file, so V8 gets the file's text as it is); loaded by src/cli/code-cache.ts
//                 with a V8 code cache.
// CommonJS, because only a script (not an ES module) can be given a code cache taken after
// it ran. The library (`import … from "reson"`) is tsc's dist/index.js with its .d.ts.
//
// External, loaded from node_modules at run time: the native SQLite binding and sqlite-vec
// (both find their binaries relative to their own files), pg (only for PostgreSQL), and
// pi-ai (only for providers reson does not speak natively; its SDKs are large); and yaml,
// a fifth of the code, read only when there is a SKILL.md (src/skills/frontmatter.ts); and
// playwright-core, loaded only when a run first uses the browser (src/browser).
import { rmSync } from "node:fs";
import { resolve } from "node:path";
import { build } from "esbuild";

const root = resolve(import.meta.dirname, "..");
const outdir = resolve(root, "dist/cli-bundle");

// "use strict" first: the sources are ES modules, strict, and esbuild's own directive comes
// after the banner, where it is no directive.
const MODULE_URL = '"use strict";\nconst __resonModuleUrl = require("node:url").pathToFileURL(__filename).href;';

const common = {
  absWorkingDir: root,
  outdir,
  bundle: true,
  format: "cjs",
  platform: "node",
  target: "node22",
  outExtension: { ".js": ".cjs" },
  external: ["better-sqlite3", "sqlite-vec", "pg", "@mariozechner/pi-ai", "@mariozechner/pi-ai/*", "yaml", "playwright-core"],
  // The sources are ES modules: import.meta.url is the bundle file's URL.
  define: { "import.meta.url": "__resonModuleUrl" },
  banner: { js: MODULE_URL },
  // Stack traces point into src/: bin/reson.js installs stack-traces.ts, which reads a map
  // only when a stack is printed.
  sourcemap: "linked",
  sourcesContent: false,
  // A third less to read and parse on every start; names stay, for stack traces.
  minifyWhitespace: true,
  minifySyntax: true,
  logLevel: "warning",
};

/**
 * A script run by node:vm has no import() of its own (without an experimental flag): the
 * subcommands get the launcher's, as the wrapper's sixth parameter (src/core/esm-import.ts).
 */
const launcherImport = {
  name: "launcher-import",
  setup(build) {
    build.onLoad({ filter: /[\\/]src[\\/]core[\\/]esm-import\.ts$/ }, () => ({
      contents: "export const importEsm = (specifier) => __resonImport(specifier);",
      loader: "js",
    }));
  },
};

/** main.ts's `import("./commands.js")` stays out of the launcher: commands.cjs has them. */
const commandsApart = {
  name: "commands-apart",
  setup(build) {
    build.onResolve({ filter: /^\.\/commands\.js$/ }, () => ({ path: "./commands.cjs", external: true }));
  },
};

rmSync(outdir, { recursive: true, force: true });
await Promise.all([
  build({ ...common, entryPoints: { launcher: "src/cli/launcher.ts" }, plugins: [commandsApart] }),
  build({
    ...common,
    entryPoints: { commands: "src/cli/commands.ts" },
    banner: { js: `(function (exports, require, module, __filename, __dirname, __resonImport) {\n${MODULE_URL}` },
    footer: { js: "})" },
    plugins: [launcherImport],
  }),
]);
