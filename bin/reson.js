#!/usr/bin/env node
// The reson command. Kept tiny: everything heavy is imported only by the command that needs it.
// The version check comes first because the native SQLite binding crashes on older Node.js
// instead of failing with a message.
const [major, minor] = process.versions.node.split(".").map(Number);
if (major < 22 || (major === 22 && minor < 12)) {
  process.stderr.write(
    `reson: Node.js 22.12 or newer is needed; this is ${process.version} (${process.execPath}).\n` +
      "  Install Node.js 22 LTS (https://nodejs.org, or your version manager: nvm install 22).\n",
  );
  process.exit(2);
}

function exitWhenFlushed(code) {
  // Idle keep-alive sockets must not hold the process open once the run is over.
  process.stdout.write("", () => process.stderr.write("", () => process.exit(code)));
}

const { main } = await import("../dist/cli/main.js");
main(process.argv.slice(2)).then(exitWhenFlushed, (error) => {
  process.stderr.write(`reson: internal error: ${error?.stack ?? error}\n`);
  exitWhenFlushed(1);
});
