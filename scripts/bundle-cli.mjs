// Bundles the reson command into dist/cli-bundle/ (run after tsc; `npm run build` does both).
// One process loading ~1,000 ES modules (TypeBox alone ships 680) spent most of its start-up
// resolving and compiling them; the bundle is two files:
//   launcher.cjs  main.ts (--version, --help, dispatch) and what bin/reson.js needs; small.
//   commands.cjs  every subcommand; loaded by src/cli/code-cache.ts with a V8 code cache.
// CommonJS, because only a script (not an ES module) can be given a code cache taken after
// it ran. The library (`import … from "reson"`) is tsc's dist/index.js with its .d.ts.
//
// External, loaded from node_modules at run time: the native SQLite binding and sqlite-vec
// (both find their binaries relative to their own files), pg (only for PostgreSQL), and
// pi-ai (only for providers reson does not speak natively; its SDKs are large).
import { rmSync } from "node:fs";
import { resolve } from "node:path";
import { build } from "esbuild";

const root = resolve(import.meta.dirname, "..");
const outdir = resolve(root, "dist/cli-bundle");

const common = {
  absWorkingDir: root,
  outdir,
  bundle: true,
  format: "cjs",
  platform: "node",
  target: "node22",
  outExtension: { ".js": ".cjs" },
  external: ["better-sqlite3", "sqlite-vec", "pg", "@mariozechner/pi-ai", "@mariozechner/pi-ai/*"],
  // The sources are ES modules: import.meta.url is the bundle file's URL.
  define: { "import.meta.url": "__resonModuleUrl" },
  banner: { js: 'const __resonModuleUrl = require("node:url").pathToFileURL(__filename).href;' },
  // Stack traces point into src/: bin/reson.js installs stack-traces.ts, which reads a map
  // only when a stack is printed.
  sourcemap: "linked",
  sourcesContent: false,
  // A third less to read and parse on every start; names stay, for stack traces.
  minifyWhitespace: true,
  minifySyntax: true,
  logLevel: "warning",
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
  build({ ...common, entryPoints: { commands: "src/cli/commands.ts" } }),
]);
