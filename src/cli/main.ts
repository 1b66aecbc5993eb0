// Entry point of the reson command: dispatches to a subcommand. Imports stay light here so
// `reson --version` and `reson --help` start fast; the subcommands come from commands.ts,
// loaded only when one runs.

import type { Handshake } from "../acp/index.js";
import { didYouMean } from "./did-you-mean.js";
import { EXIT_OK, EXIT_USAGE } from "./exit-codes.js";
import { COMMAND_NAMES, MAIN_HELP, unknownCommandText } from "./help.js";
import { packageVersion } from "./version.js";

export type Commands = typeof import("./commands.js");

/** The subcommands, and what to do once `command` has finished with `exitCode`. */
export interface LoadedCommands {
  commands: Commands;
  finished(exitCode: number): void;
}

/** How main gets the subcommands: bin/reson.js loads the bundle's copy (code-cache.ts). */
export type LoadCommands = (command: string) => Promise<LoadedCommands>;

const loadModules: LoadCommands = async () => ({ commands: await import("./commands.js"), finished() {} });

type Runner = (
  commands: Commands,
  rest: string[],
  argv: string[],
  early: Promise<unknown>,
) => Promise<number>;

/**
 * What a command starts before the subcommands' bundle loads. `reson acp` answers the editor's
 * initialize at once (src/acp/handshake.ts), then loads the rest while the editor moves on.
 */
const EARLY: Record<string, (rest: string[]) => Promise<unknown>> = {
  acp: async (rest) => {
    // Help, or a person at a terminal (a mistyped flag is reported before any input is read).
    if (rest.some((arg) => arg === "-h" || arg === "--help") || process.stdin.isTTY) return undefined;
    // Node makes one "released" error per process for web streams' readers and writers, the
    // first time one is let go (the SDK does so around each message), and reads its stack at
    // once: made there, stack-traces.ts would read and parse the SDK chunk's source map for it
    // (tens of milliseconds of the first answer). Made here, with plain stacks: no one sees it.
    const errors = Error as { prepareStackTrace?: unknown };
    const prepare = errors.prepareStackTrace;
    errors.prepareStackTrace = undefined;
    new WritableStream().getWriter().releaseLock();
    new ReadableStream().getReader().releaseLock();
    errors.prepareStackTrace = prepare;
    const { advertisedImages, answerInitialize } = await import("../acp/index.js");
    return answerInitialize(
      { input: process.stdin, write: (line) => process.stdout.write(line) },
      { version: packageVersion(), images: advertisedImages(rest, process.env) },
    );
  },
};

const RUNNERS: Record<string, Runner> = {
  run: (c, rest) => c.runCommand(rest),
  resume: (c, rest) => c.resumeCommand(rest),
  sessions: (c, rest) => c.sessionsCommand(rest),
  trace: (c, rest) => c.traceCommand(rest),
  tools: (c, rest) => c.toolsCommand(rest),
  skills: (c, rest) => c.skillsCommand(rest),
  memory: (c, rest) => c.memoryCommand(rest),
  experiences: (c, rest) => c.experiencesCommand(rest),
  doctor: (c, rest) => c.doctorCommand(rest),
  mcp: (c, rest) => c.mcpCommand(rest),
  plugin: (c, rest) => c.pluginCommand(rest),
  plugins: (c, rest) => c.pluginCommand(rest),
  permissions: (c, rest) => c.permissionsCommand(rest),
  gc: (c, rest) => c.gcCommand(rest),
  diff: (c, rest) => c.diffCommand(rest),
  rewind: (c, rest) => c.rewindCommand(rest),
  serve: (c, rest) => c.serveCommand(rest),
  worker: (c, rest) => c.workerCommand(rest),
  channel: (c, rest) => c.channelCommand(rest),
  acp: (c, rest, _argv, early) => c.acpCommand(rest, early as Promise<Handshake | undefined>),
  workspace: (c, rest) => c.workspaceCommand(rest),
  // `reson`, `reson --continue`, `reson -w dir -m model`: the interactive terminal.
  repl: (c, _rest, argv) => c.replCommand(argv),
};

export async function main(argv: string[], loadCommands: LoadCommands = loadModules): Promise<number> {
  const [command, ...rest] = argv;
  if (command === "--version" || command === "-v" || command === "version") {
    process.stdout.write(`${packageVersion()}\n`);
    return EXIT_OK;
  }
  if (command === "--help" || command === "-h" || command === "help") {
    process.stdout.write(MAIN_HELP);
    return EXIT_OK;
  }
  const name = command === undefined || command.startsWith("-") ? "repl" : command;
  const runner = Object.hasOwn(RUNNERS, name) ? RUNNERS[name] : undefined;
  if (!runner) {
    process.stderr.write(
      `reson: ${unknownCommandText(
        command ?? "",
        didYouMean(command ?? "", COMMAND_NAMES, (c) => `reson ${c}`),
      )}\n`,
    );
    return EXIT_USAGE;
  }
  const early = EARLY[name]?.(rest) ?? Promise.resolve(undefined);
  // Loading the bundle blocks the event loop: the early work is done first (the command gets
  // its outcome, a failure included).
  await early.catch(() => {});
  const loaded = await loadCommands(name);
  let exitCode = 1;
  try {
    exitCode = await runner(loaded.commands, rest, argv, early);
    return exitCode;
  } finally {
    // Nothing reson started outlives it: a command's background processes, a probe in flight.
    await loaded.commands.endChildren();
    loaded.finished(exitCode);
  }
}
