// What bin/reson.js takes from the bundle (dist/cli-bundle/launcher.cjs, a few kilobytes):
// the dispatcher, the loader of the subcommands' bundle, and source-mapped stack traces.
export { bundledCommands } from "./code-cache.js";
export { main } from "./main.js";
export { installSourceMappedStacks } from "./stack-traces.js";
