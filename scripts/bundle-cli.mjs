// Bundles the reson command into dist/cli-bundle/ (run after tsc; `npm run build` does both).
// One process loading ~1,000 ES modules (TypeBox alone ships 680) spent most of its start-up
// resolving and compiling them; the bundle is four files:
//   launcher.cjs    main.ts (--version, --help, dispatch) and what bin/reson.js needs; small.
//                   With it the ACP handshake (src/acp/handshake.ts): `reson acp` answers the
//                   editor's initialize before commands.cjs and acp-sdk.cjs are read.
//   commands.cjs    every subcommand, as one function expression (the module wrapper is in the
//                   file, so V8 gets the file's text as it is); loaded by src/cli/code-cache.ts
//                   with a V8 code cache.
//   mcp-client.cjs  the MCP client SDK, required by commands.cjs at a run's first MCP server.
//   acp-sdk.cjs     the Agent Client Protocol SDK, required by commands.cjs when `reson acp` starts.
// CommonJS, because only a script (not an ES module) can be given a code cache taken after
// it ran. The library (`import … from "reson"`) is tsc's dist/index.js with its .d.ts.
//
// better-sqlite3's JavaScript is in commands.cjs; its binding.js, which finds the native addon
// relative to its own file, is loaded from node_modules. External, loaded from node_modules at
// run time: sqlite-vec (it finds its binary relative to its own file), pg (only for PostgreSQL), and
// pi-ai (only for providers reson does not speak natively; its SDKs are large); and yaml,
// a fifth of the code, read only when there is a SKILL.md (src/skills/frontmatter.ts); and
// jieba, a native binding with its dictionary, loaded only for text with Chinese in it; and
// playwright-core, loaded only when a run first uses the browser (src/browser); and grammY,
// loaded only when `reson serve` starts a Telegram channel (src/channels/telegram), and Slack's
// Bolt, only for a Slack channel (src/channels/slack).
import { readFileSync, rmSync } from "node:fs";
import { relative, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { build } from "esbuild";
import { schemaCheckModule } from "./schema-checks.mjs";
import { DATA_MODULES, literalModule } from "./schema-literals.mjs";

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
  external: [
    "better-sqlite3/package.json",
    "sqlite-vec",
    "pg",
    "@mariozechner/pi-ai",
    "@mariozechner/pi-ai/*",
    "yaml",
    "@node-rs/jieba",
    "playwright-core",
    "grammy",
    "@slack/bolt",
  ],
  // The sources are ES modules: import.meta.url is the bundle file's URL.
  define: { "import.meta.url": "__resonModuleUrl" },
  banner: { js: MODULE_URL },
  // Stack traces point into src/: bin/reson.js installs stack-traces.ts, which reads a map
  // only when a stack is printed.
  sourcemap: "linked",
  sourcesContent: false,
  // Less than half the text to read, and a smaller code cache, on every start. Stack traces
  // get the original names of functions back from the source map (src/cli/stack-traces.ts).
  minifyWhitespace: true,
  minifySyntax: true,
  minifyIdentifiers: true,
  // Packages' license comments go to a file beside the bundle (they may hold any character).
  legalComments: "linked",
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

/**
 * better-sqlite3 in the bundle: the store's require() of it becomes one the bundler follows
 * (src/store/sqlite/sqlite-packages.ts), and the package's binding.js is the one in
 * node_modules, so the addon is found where the package put it (prebuilt or compiled).
 */
const bundledSqlite = {
  name: "bundled-sqlite",
  setup(build) {
    build.onLoad({ filter: /[\\/]src[\\/]store[\\/]sqlite[\\/]sqlite-packages\.ts$/ }, () => ({
      contents:
        'export const requireBetterSqlite3 = () => require("better-sqlite3");\n' +
        'export const requireSqliteVec = () => require("sqlite-vec");\n',
      loader: "js",
    }));
    // The package's folder is looked for along require()'s own node_modules paths, not through
    // its "exports" map: resolving a specifier through a map loads Node's ES module resolver
    // (~2 ms of every start) for what is only a file path. The map is the fallback.
    build.onLoad({ filter: /[\\/]node_modules[\\/]better-sqlite3[\\/]lib[\\/]binding\.js$/ }, () => ({
      contents:
        'const { existsSync } = require("node:fs");\n' +
        'const { dirname, join } = require("node:path");\n' +
        'const binding = (require.resolve.paths("better-sqlite3") ?? [])\n' +
        '  .map((folder) => join(folder, "better-sqlite3", "lib", "binding.js"))\n' +
        '  .find((file) => existsSync(file));\n' +
        'module.exports = require(binding ?? join(dirname(require.resolve("better-sqlite3/package.json")), "lib", "binding.js"));\n',
      loader: "js",
    }));
  },
};

/**
 * TypeBox's value checker and compiler are initialised on first use, not at every start
 * (src/core/typebox-runtime.ts): a require() of an ES module is one esbuild runs when called.
 */
const lazyTypebox = {
  name: "lazy-typebox",
  setup(build) {
    build.onLoad({ filter: /[\\/]src[\\/]core[\\/]typebox-runtime\.ts$/ }, () => ({
      contents:
        'export const typeboxValue = () => require("typebox/value").Value;\n' +
        'export const typeboxCompile = () => require("typebox/compile").Compile;\n',
      loader: "js",
    }));
  },
};

/**
 * Built-in modules of functions that a run does not call, as the sources import them: modules
 * whose exports load the real one on their first call. A run reads its few start-up files
 * synchronously, so node:fs/promises (with the file-watching and readline modules it brings)
 * and node:readline/promises (the confirmations of `reson mcp`, `plugin` and `workspace`) are
 * never loaded by it: ~1.5 ms of every start. Only plain functions are exported (a class could
 * not be wrapped so): importing anything else fails the build. node:fs/promises' `constants`
 * are node:fs's.
 */
const LAZY_BUILTINS = ["node:fs/promises", "node:readline/promises"];
const lazyBuiltins = {
  name: "lazy-builtins",
  setup(build) {
    const specifiers = new RegExp(`^(${LAZY_BUILTINS.map((name) => name.replaceAll("/", "\\/")).join("|")})$`);
    build.onResolve({ filter: specifiers }, ({ path, importer }) =>
      /[\\/]src[\\/]/.test(importer) ? { path, namespace: "lazy-builtin" } : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: "lazy-builtin" }, async ({ path }) => {
      const real = await import(path);
      const isPlainFunction = (value) =>
        typeof value === "function" && !Function.prototype.toString.call(value).startsWith("class");
      const names = Object.keys(real).filter((name) => name !== "default" && isPlainFunction(real[name]));
      return {
        contents: [
          "let loaded;",
          `const load = () => (loaded ??= require(${JSON.stringify(path)}));`,
          ...("constants" in real ? ['export const constants = require("node:fs").constants;'] : []),
          ...names.map((name) => `export const ${name} = (...args) => load().${name}(...args);`),
        ].join("\n"),
        loader: "js",
      };
    });
  },
};

/**
 * The configuration checks generated from the schemas tsc just compiled (src/config/config-check.ts,
 * scripts/schema-checks.mjs), instead of TypeBox's schema engine interpreting them.
 */
const generatedConfigChecks = {
  name: "generated-config-checks",
  setup(build) {
    build.onLoad({ filter: /[\\/]src[\\/]config[\\/]config-check\.ts$/ }, async () => {
      const { ConfigSchema, PartialConfigSchema } = await import(
        pathToFileURL(resolve(root, "dist/config/schema.js")).href
      );
      return {
        contents: schemaCheckModule({ isPartialConfig: PartialConfigSchema, isConfig: ConfigSchema }),
        loader: "js",
        resolveDir: root,
      };
    });
  },
};

/**
 * Modules of data only, their values written out when bundled (scripts/schema-literals.mjs):
 * the configuration's schemas took ~1 ms of every start to build with TypeBox.
 */
const dataAsLiterals = {
  name: "data-as-literals",
  setup(build) {
    const names = DATA_MODULES.map((file) => file.replace(/^src\//, "").replaceAll(".", "\\.")).join("|");
    build.onLoad({ filter: new RegExp(`[\\\\/]src[\\\\/](${names})$`) }, async ({ path }) => {
      const source = relative(resolve(root, "src"), path).replaceAll("\\", "/");
      const compiled = resolve(root, "dist", source.replace(/\.ts$/, ".js"));
      return { contents: literalModule(await import(pathToFileURL(compiled).href)), loader: "js" };
    });
  },
};

/**
 * The MCP client SDK (with zod, its schemas and its event-stream client: a third of all the
 * code) is a file of its own, mcp-client.cjs, required when a run first connects to an MCP
 * server (src/mcp/open-connection.ts): a run without one neither reads nor compiles it.
 */
const MCP_CLIENT = /^@modelcontextprotocol\/client(\/stdio)?$/;
const mcpClientApart = {
  name: "mcp-client-apart",
  setup(build) {
    build.onResolve({ filter: MCP_CLIENT }, () => ({ path: "./mcp-client.cjs", external: true }));
  },
};
const mcpClientEntry = {
  name: "mcp-client-entry",
  setup(build) {
    build.onResolve({ filter: /^mcp-client-entry$/ }, () => ({ path: "mcp-client-entry", namespace: "entry" }));
    build.onLoad({ filter: /.*/, namespace: "entry" }, () => ({
      contents:
        'export * from "@modelcontextprotocol/client";\n' +
        'export { getDefaultEnvironment } from "@modelcontextprotocol/client/stdio";\n',
      resolveDir: root,
      loader: "js",
    }));
  },
};

/**
 * The Agent Client Protocol SDK (with its own zod schemas) is a file of its own too, acp-sdk.cjs,
 * required when `reson acp` starts (src/acp is imported dynamically by src/cli/acp-command.ts):
 * no other command reads or compiles it.
 */
const ACP_SDK = /^@agentclientprotocol\/sdk$/;
const acpSdkApart = {
  name: "acp-sdk-apart",
  setup(build) {
    build.onResolve({ filter: ACP_SDK }, () => ({ path: "./acp-sdk.cjs", external: true }));
  },
};
const acpSdkEntry = {
  name: "acp-sdk-entry",
  setup(build) {
    build.onResolve({ filter: /^acp-sdk-entry$/ }, () => ({ path: "acp-sdk-entry", namespace: "entry" }));
    build.onLoad({ filter: /.*/, namespace: "entry" }, () => ({
      contents: 'export * from "@agentclientprotocol/sdk";\n',
      resolveDir: root,
      loader: "js",
    }));
  },
};

/**
 * The launcher takes src/acp/index.ts for the handshake alone; the host it loads for serveAcp
 * (the SDK, the runner, everything) is commands.cjs's. In the launcher that import is a module
 * that says so: main.ts never serves a connection.
 */
const acpHostApart = {
  name: "acp-host-apart",
  setup(build) {
    build.onResolve({ filter: /^\.\/acp-host\.js$/ }, ({ importer }) =>
      /[\\/]src[\\/]acp[\\/]index\.ts$/.test(importer) ? { path: "acp-host", namespace: "commands-only" } : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: "commands-only" }, () => ({
      contents:
        'export const serveAcp = () => { throw new Error("the ACP host is in commands.cjs, not the launcher"); };\n',
      loader: "js",
    }));
  },
};

/**
 * The handshake's image capability (src/acp/image-capability.ts) reads the providers' static
 * catalog and where $RESON_HOME is, alone; through the providers' and config's index.ts the
 * launcher would take both layers (several times its size). In the launcher those imports are
 * the catalog and home.ts.
 */
const IN_LAUNCHER = { providers: "src/providers/catalog.ts", config: "src/config/home.ts" };
const providerCatalogOnly = {
  name: "provider-catalog-only",
  setup(build) {
    build.onResolve({ filter: /^\.\.\/(providers|config)\/index\.js$/ }, ({ importer, path }) =>
      /[\\/]src[\\/]acp[\\/]image-capability\.ts$/.test(importer)
        ? { path: resolve(root, IN_LAUNCHER[path.split("/")[1]]) }
        : undefined,
    );
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
  build({
    ...common,
    entryPoints: { launcher: "src/cli/launcher.ts" },
    plugins: [commandsApart, acpHostApart, providerCatalogOnly],
  }),
  build({
    ...common,
    entryPoints: { commands: "src/cli/commands.ts" },
    banner: { js: `(function (exports, require, module, __filename, __dirname, __resonImport) {\n${MODULE_URL}` },
    footer: { js: "})" },
    plugins: [
      launcherImport,
      bundledSqlite,
      lazyTypebox,
      lazyBuiltins,
      generatedConfigChecks,
      dataAsLiterals,
      mcpClientApart,
      acpSdkApart,
    ],
  }),
  build({ ...common, entryPoints: { "mcp-client": "mcp-client-entry" }, plugins: [mcpClientEntry] }),
  build({ ...common, entryPoints: { "acp-sdk": "acp-sdk-entry" }, plugins: [acpSdkEntry] }),
]);

// src/cli/code-cache.ts reads commands.cjs as Latin-1, which is its text only while the file is
// ASCII: that read skips UTF-8 validation, and V8 keeps the source in one byte per character
// instead of two (a 1 MB string read on every start). esbuild escapes non-ASCII characters
// in strings, not in regular expression literals: write those as \uXXXX in the source.
const commands = readFileSync(resolve(outdir, "commands.cjs"));
const nonAscii = commands.findIndex((byte) => byte > 0x7f);
if (nonAscii >= 0) {
  const line = commands.subarray(0, nonAscii).toString("latin1").split("\n").length;
  const near = commands.subarray(Math.max(0, nonAscii - 60), nonAscii + 20).toString("utf8");
  console.error(`dist/cli-bundle/commands.cjs is not ASCII at line ${line}: …${near}…`);
  console.error("Write the character as a \\uXXXX escape in the TypeScript source (see scripts/bundle-cli.mjs).");
  process.exit(1);
}
