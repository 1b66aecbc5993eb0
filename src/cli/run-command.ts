// `reson run`: one headless run in the workspace, streamed to the terminal or as JSON lines.
// Ctrl-C once cancels the run (the step in flight stops, the run ends "aborted", exit 130);
// a second Ctrl-C exits at once.
import { createAgent } from "../agent/index.js";
import { ResonError, toResonError } from "../core/errors.js";
import type { ResonEvent } from "../core/events.js";
import type { ProviderName } from "../providers/index.js";
import { EXIT_INTERRUPTED, EXIT_OK, EXIT_USAGE, exitCodeForError, exitCodeForStatus } from "./exit-codes.js";
import { MAIN_HELP } from "./help.js";
import { humanRenderer } from "./render-human.js";
import { jsonRenderer } from "./render-json.js";
import { parseRunArgs, type RunArgs } from "./run-args.js";

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8").trim();
}

/** In --json mode stdout carries only events: route stray console output to stderr. */
function keepStdoutForEvents(): void {
  const toStderr = (...args: unknown[]) => {
    process.stderr.write(`${args.map((a) => (typeof a === "string" ? a : String(a))).join(" ")}\n`);
  };
  console.log = toStderr;
  console.info = toStderr;
  console.debug = toStderr;
}

function reportError(error: ResonError): void {
  process.stderr.write(`reson: ${error.message}\n`);
  if (error.hint) process.stderr.write(`hint: ${error.hint}\n`);
}

function useColor(): boolean {
  return process.stderr.isTTY === true && !process.env.NO_COLOR && process.env.TERM !== "dumb";
}

export async function runCommand(argv: string[]): Promise<number> {
  let args: RunArgs;
  try {
    args = parseRunArgs(argv);
  } catch (error) {
    reportError(toResonError(error, "usage_error"));
    return EXIT_USAGE;
  }
  if (args.help) {
    process.stdout.write(MAIN_HELP);
    return EXIT_OK;
  }
  if (args.json) keepStdoutForEvents();

  const controller = new AbortController();
  let interrupts = 0;
  const onSignal = (signal: NodeJS.Signals) => {
    interrupts++;
    if (interrupts > 1) {
      process.stderr.write("\nreson: interrupted again, exiting now.\n");
      process.exit(EXIT_INTERRUPTED);
    }
    process.stderr.write(`\nreson: cancelling (${signal}); press Ctrl-C again to exit at once.\n`);
    controller.abort(new ResonError("aborted", `Interrupted by ${signal}.`));
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);

  try {
    const task = args.task === "-" ? await readStdin() : args.task;
    if (!task) throw new ResonError("usage_error", "The task read from standard input is empty.");
    const agent = await createAgent({
      ...(args.workspace ? { workspace: args.workspace } : {}),
      ...(args.provider ? { provider: args.provider as ProviderName } : {}),
      ...(args.model ? { model: args.model } : {}),
      ...(args.baseUrl ? { baseUrl: args.baseUrl } : {}),
      ...(args.apiKey ? { apiKey: args.apiKey } : {}),
      ...(args.maxIterations ? { maxIterations: args.maxIterations } : {}),
    });
    if (controller.signal.aborted) return EXIT_INTERRUPTED;
    const render: (event: ResonEvent) => void = args.json
      ? jsonRenderer(process.stdout)
      : humanRenderer({ out: process.stdout, err: process.stderr, color: useColor() });
    const result = await agent.run(task, { signal: controller.signal, onEvent: render });
    return exitCodeForStatus(result.status);
  } catch (error) {
    const failure = toResonError(error);
    reportError(failure);
    return exitCodeForError(failure.code);
  } finally {
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
  }
}
