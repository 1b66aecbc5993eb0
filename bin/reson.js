#!/usr/bin/env node
// The reson command. Kept tiny: everything heavy is imported only by the command that needs it.
// CommonJS (bin/package.json): a CommonJS entry starts ~5 ms sooner than an ES module one.
// The version check comes first because the native SQLite binding crashes on older Node.js
// instead of failing with a message.
const [major, minor] = process.versions.node.split(".").map(Number);
if (major < 22 || (major === 22 && minor < 15)) {
  process.stderr.write(
    `reson: Node.js 22.15 or newer is needed; this is ${process.version} (${process.execPath}).\n` +
      "  Install Node.js 22 LTS (https://nodejs.org, or your version manager: nvm install 22).\n",
  );
  process.exit(2);
}

// The bundle (scripts/bundle-cli.mjs): the launcher, small, then for a subcommand the rest,
// with V8 code caches (src/cli/code-cache.ts). Node's compile cache covers the launcher and
// the dependencies loaded from node_modules (NODE_DISABLE_COMPILE_CACHE=1 turns both off).
const { pathToFileURL } = require("node:url");
require("node:module").enableCompileCache?.();
const bundle = pathToFileURL(`${__dirname}/../dist/cli-bundle/`);
const cli = require("../dist/cli-bundle/launcher.cjs");
cli.installSourceMappedStacks(bundle.href);

function exitWhenFlushed(code) {
  // The one exit path of every command. Idle keep-alive sockets must not hold the process open
  // once the command is over, so it exits explicitly; but a write to a pipe is synchronous
  // only while the kernel's buffer has room, and Node queues the rest (writableLength). Exit
  // at once when nothing is queued (a terminal, a file, a pipe that kept up), which also skips
  // the garbage collection V8 may have scheduled; otherwise when the queues have drained.
  const pending = [process.stdout, process.stderr].filter((stream) => stream.writableLength > 0);
  if (pending.length === 0) process.exit(code);
  let left = pending.length;
  const drained = () => {
    left -= 1;
    if (left === 0) process.exit(code);
  };
  for (const stream of pending) stream.write("", drained);
}

// A reader that went away (`reson run --json … | head -n 1`): stop as a program that SIGPIPE
// ends would (status 141), not with a stack trace. The exit hook of src/workspace/processes.ts
// still ends reson's children, and a run cut off this way resumes like any other.
for (const stream of [process.stdout, process.stderr]) {
  stream.on("error", (error) => {
    if (error.code === "EPIPE") process.exit(141);
    throw error;
  });
}

cli
  .main(process.argv.slice(2), cli.bundledCommands(new URL("commands.cjs", bundle)))
  .then(exitWhenFlushed, (error) => {
    process.stderr.write(`reson: internal error: ${error?.stack ?? error}\n`);
    exitWhenFlushed(1);
  });
