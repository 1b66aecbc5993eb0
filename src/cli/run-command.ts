// `reson run` and `reson resume`: one headless run in the workspace, streamed to the terminal
// or as JSON lines. Ctrl-C once cancels the run (the step in flight stops, the run ends
// "aborted", exit 130); a second Ctrl-C exits at once. Every run is persisted, so a run that
// stopped for any reason continues with `reson resume <id>` or `reson run --continue`; a run
// another live process holds is refused (exit 2), and one this process lost stops (exit 1).

import {
  type Agent,
  type AgentOptions,
  createAgent,
  findTrace,
  openDefaultStore,
  type RunResult,
} from "../agent/index.js";
import { resonHome } from "../config/index.js";
import { ResonError, toResonError } from "../core/errors.js";
import type { EventListener } from "../core/events.js";

import type { ProviderName } from "../providers/index.js";
import {
  gateOptions,
  loadGate,
  type RunExtensions,
  sandboxSetup,
  startRunExtensions,
} from "../runner/index.js";
import { projectKey, type Store, type TraceRecord } from "../store/index.js";
import { stdinAnswers } from "./ask-human.js";
import { EXIT_INTERRUPTED, EXIT_OK, EXIT_USAGE, exitCodeForError, exitCodeForStatus } from "./exit-codes.js";
import { MAIN_HELP } from "./help.js";
import { humanRenderer } from "./render-human.js";
import { jsonRenderer } from "./render-json.js";
import { type ModelArgs, parseResumeArgs, parseRunArgs } from "./run-args.js";
import { outsideText } from "./terminal-text.js";
import { existingWorkspaceFolder, settleWorkspace } from "./workspace-choice.js";

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

/** What resume says of a run that had already completed and been learned from. */
export function nothingToResume(result: RunResult): string {
  const steps = `${result.steps} step${result.steps === 1 ? "" : "s"}`;
  return (
    `Run ${result.runId} already completed (${steps}); there is nothing to resume.\n` +
    `  see it with: reson trace show ${result.runId}\n`
  );
}

/** An error on stderr; its text may quote what a server or the model said, so it is made safe on a terminal. */
export function reportError(error: ResonError): void {
  const safe = outsideText(process.stderr);
  process.stderr.write(`reson: ${safe(error.message)}\n`);
  if (error.hint) process.stderr.write(`hint: ${safe(error.hint)}\n`);
}

function useColor(): boolean {
  return process.stderr.isTTY === true && !process.env.NO_COLOR && process.env.TERM !== "dumb";
}

function agentOptions(args: ModelArgs, stored?: TraceRecord): AgentOptions {
  const provider = args.provider ?? stored?.provider;
  const model = args.model ?? (args.provider ? undefined : stored?.model);
  const baseUrl = args.baseUrl ?? (args.provider ? undefined : (stored?.baseUrl ?? undefined));
  return {
    ...(args.workspace ? { workspace: args.workspace } : {}),
    ...(provider ? { provider: provider as ProviderName } : {}),
    ...(model ? { model } : {}),
    ...(baseUrl ? { baseUrl } : {}),
    ...(args.apiKey ? { apiKey: args.apiKey } : {}),
    ...(args.maxIterations ? { maxIterations: args.maxIterations } : {}),
    ...(Object.keys(args.limits).length > 0 ? { limits: args.limits } : {}),
    ...((args.preset ?? stored?.preset) ? { preset: (args.preset ?? stored?.preset) as string } : {}),
    ...(args.trustWorkspace ? { trustWorkspace: true } : {}),
    ...(args.browserHeaded ? { config: { browser: { headless: false } } } : {}),
  };
}

type Launch = (agent: Agent, signal: AbortSignal, onEvent: EventListener) => Promise<RunResult>;

/** Runs one launch with signal handling, rendering and exit codes common to run and resume. */
async function execute(
  args: ModelArgs,
  prepare: (store: Store) => Promise<{ options: AgentOptions; launch: Launch }>,
): Promise<number> {
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

  let store: Store | undefined;
  let agent: Agent | undefined;
  let extensions: RunExtensions | undefined;
  // ask_human's answers: one line of stdin per question (the question goes out as an event).
  const answers = args.interactiveStdin
    ? stdinAnswers({ input: process.stdin, err: process.stderr, prompt: !args.json })
    : undefined;
  try {
    store = await openDefaultStore(resonHome());
    const { options, launch } = await prepare(store);
    // A folder that is not there stops the run before any plugin or MCP server starts for it.
    const workspaceRoot = existingWorkspaceFolder(options.workspace);
    const permissions = await permissionOptions(args, workspaceRoot);
    extensions = await startRunExtensions({
      workspace: workspaceRoot,
      allowMcp: args.allowMcp,
      signal: controller.signal,
      warn: (message) => process.stderr.write(`warning: ${outsideText(process.stderr)(message)}\n`),
    });
    agent = await createAgent(
      extensions.agentOptions({
        ...options,
        ...permissions,
        store,
        ...(answers ? { askHuman: answers.ask } : {}),
      }),
    );
    extensions.attach(agent);
    if (controller.signal.aborted) return EXIT_INTERRUPTED;
    const render: EventListener = args.json
      ? jsonRenderer(process.stdout)
      : humanRenderer({ out: process.stdout, err: process.stderr, color: useColor() });
    const result = await launch(agent, controller.signal, render);
    if (result.alreadyEnded) process.stderr.write(nothingToResume(result));
    if (result.error?.code === "lease_lost") {
      // Another process runs it now: there is nothing here to continue.
      if (args.json)
        reportError(new ResonError("lease_lost", result.error.message, { hint: result.error.hint }));
    } else if (result.status !== "completed" && !args.json) {
      process.stderr.write(`  continue it with: reson resume ${result.runId}\n`);
    }
    return exitCodeForStatus(result.status);
  } catch (error) {
    const failure = toResonError(error);
    reportError(failure);
    return exitCodeForError(failure.code);
  } finally {
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
    answers?.close();
    await extensions?.close();
    // The process exits next (see CloseOptions).
    await store?.close({ processExiting: true }).catch(() => {});
  }
}

/**
 * The permission gate of a headless run: rules from flags and settings files, mode
 * acceptEdits unless a flag or a settings file says otherwise, and no one to ask, so a call
 * that would need approval is denied with the flag or rule that allows it.
 */
async function permissionOptions(
  args: ModelArgs,
  workspaceRoot: string,
): Promise<Pick<AgentOptions, "hooks" | "offerTool" | "sandbox" | "sandboxSummary" | "readOnlyWorkspace">> {
  const sandbox = await sandboxSetup(args.sandbox, false);
  const gate = await loadGate(args, workspaceRoot, { defaultMode: "acceptEdits", sandbox: sandbox.state });
  // A headless run cannot change mode: plan mode's workspace is read-only for commands too.
  const readOnly = gate.currentMode === "plan" ? { readOnlyWorkspace: true } : {};
  return { ...gateOptions(gate), ...sandbox.agent, ...readOnly };
}

export async function runCommand(argv: string[]): Promise<number> {
  let args: ReturnType<typeof parseRunArgs>;
  try {
    args = parseRunArgs(argv);
  } catch (error) {
    reportError(toResonError(error, "usage_error"));
    return EXIT_USAGE;
  }
  return execute(args, async (store) => {
    await settleWorkspace(store, args, "default");
    const task = args.task === "-" ? await readStdin() : args.task;
    if (args.task === "-" && !task)
      throw new ResonError("usage_error", "The task read from standard input is empty.");
    if (!task) {
      // --continue with no task: finish the newest run of this workspace's newest session.
      const session = await store.sessions.latest(projectKey(existingWorkspaceFolder(args.workspace)));
      if (!session) {
        throw new ResonError("usage_error", "There is no session to continue in this workspace.", {
          hint: 'Start one with reson run "<task>"; `reson sessions` lists sessions everywhere.',
        });
      }
      const trace = await findTrace(store, session.id);
      return {
        options: {
          ...agentOptions({ ...args, workspace: args.workspace ?? session.workspace }, trace),
          leaseHolder: "reson run --continue",
        },
        launch: (agent, signal, onEvent) =>
          agent.resume(trace.id, { signal, onEvent, ...(args.force ? { force: true } : {}) }),
      };
    }
    return {
      options: { ...agentOptions(args), leaseHolder: args.continue ? "reson run --continue" : "reson run" },
      launch: (agent, signal, onEvent) =>
        agent.run(task, { signal, onEvent, session: args.continue ? "latest" : "new" }),
    };
  });
}

export async function resumeCommand(argv: string[]): Promise<number> {
  let args: ReturnType<typeof parseResumeArgs>;
  try {
    args = parseResumeArgs(argv);
  } catch (error) {
    reportError(toResonError(error, "usage_error"));
    return EXIT_USAGE;
  }
  return execute(args, async (store) => {
    await settleWorkspace(store, args, "none");
    const trace = await findTrace(store, args.id);
    const session = await store.sessions.get(trace.sessionId);
    return {
      options: {
        ...agentOptions({ ...args, workspace: args.workspace ?? session?.workspace }, trace),
        leaseHolder: "reson resume",
      },
      launch: (agent, signal, onEvent) =>
        agent.resume(trace.id, { signal, onEvent, ...(args.force ? { force: true } : {}) }),
    };
  });
}
