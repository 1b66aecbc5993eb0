#!/usr/bin/env node
// The reson command. Kept tiny: everything heavy is imported only by the command that needs it.
import { main } from "../dist/cli/main.js";

function exitWhenFlushed(code) {
  // Idle keep-alive sockets must not hold the process open once the run is over.
  process.stdout.write("", () => process.stderr.write("", () => process.exit(code)));
}

main(process.argv.slice(2)).then(exitWhenFlushed, (error) => {
  process.stderr.write(`reson: internal error: ${error?.stack ?? error}\n`);
  exitWhenFlushed(1);
});
