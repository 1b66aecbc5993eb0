// Entry point of the reson command: dispatches to a subcommand. Imports stay light here so
// `reson --version` and `reson --help` start fast; a command loads what it needs.
import { EXIT_OK, EXIT_USAGE } from "./exit-codes.js";
import { MAIN_HELP } from "./help.js";
import { packageVersion } from "./version.js";

export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command === "--version" || command === "-v" || command === "version") {
    process.stdout.write(`${packageVersion()}\n`);
    return EXIT_OK;
  }
  if (command === "--help" || command === "-h" || command === "help") {
    process.stdout.write(MAIN_HELP);
    return EXIT_OK;
  }
  try {
    return await dispatch(command, rest, argv);
  } finally {
    // Nothing reson started outlives it: a command's background processes, a probe in flight.
    const { endChildren } = await import("../workspace/index.js");
    await endChildren();
  }
}

async function dispatch(command: string | undefined, rest: string[], argv: string[]): Promise<number> {
  if (command === "run") {
    const { runCommand } = await import("./run-command.js");
    return runCommand(rest);
  }
  if (command === "resume") {
    const { resumeCommand } = await import("./run-command.js");
    return resumeCommand(rest);
  }
  if (command === "sessions") {
    const { sessionsCommand } = await import("./store-commands.js");
    return sessionsCommand(rest);
  }
  if (command === "trace") {
    const { traceCommand } = await import("./store-commands.js");
    return traceCommand(rest);
  }
  if (command === "tools") {
    const { toolsCommand } = await import("./tools-command.js");
    return toolsCommand(rest);
  }
  if (command === "skills") {
    const { skillsCommand } = await import("./skills-command.js");
    return skillsCommand(rest);
  }
  if (command === "memory") {
    const { memoryCommand } = await import("./memory-commands.js");
    return memoryCommand(rest);
  }
  if (command === "experiences") {
    const { experiencesCommand } = await import("./memory-commands.js");
    return experiencesCommand(rest);
  }
  if (command === "doctor") {
    const { doctorCommand } = await import("./doctor-command.js");
    return doctorCommand(rest);
  }
  if (command === "gc") {
    const { gcCommand } = await import("./store-commands.js");
    return gcCommand(rest);
  }
  if (command === undefined || command.startsWith("-")) {
    // `reson`, `reson --continue`, `reson -w dir -m model`: the interactive terminal.
    const { replCommand } = await import("./repl.js");
    return replCommand(argv);
  }
  process.stderr.write(
    `reson: unknown command "${command}". Commands: run, resume, sessions, trace, tools, skills, memory, experiences, doctor, gc (or none, for the interactive terminal). See \`reson --help\`.\n`,
  );
  return EXIT_USAGE;
}
