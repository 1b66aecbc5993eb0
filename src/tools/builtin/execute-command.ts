// execute_command: one shell command in the workspace root, with a timeout. A non-zero exit
// is a failed call (ok:false, command_failed) that still shows the output, so the loop's
// circuit breaker sees failing steps and the model sees why.
import { Type } from "typebox";
import { abortError } from "../../core/abort.js";
import { ResonError } from "../../core/errors.js";
import { humanDuration } from "../../core/human-duration.js";
import {
  DEFAULT_COMMAND_TIMEOUT_MS,
  type ProtectedKind,
  UNTRUSTED_PROTECTED_KINDS,
} from "../../workspace/index.js";
import type { SecretAccess, ToolContext, ToolDefinition } from "../types.js";

export const MAX_COMMAND_TIMEOUT_MS = 600_000;
/** Kept by the workspace (head and tail); central truncation then cuts to its own limits. */
/** Output a command may write before it is stopped (a plugin's commands have the same limit). */
export const COMMAND_OUTPUT_BYTES = 256 * 1024;

export interface ExecuteCommandToolOptions {
  /** Used when the call gives no timeout_ms; default 120 s. */
  defaultTimeoutMs?: number;
  /** Commands run in the OS sandbox (said in the description, so the model knows its reach). */
  sandboxed?: boolean;
  /** How much one command may grow the use of the workspace's disk; default the workspace's. */
  diskBytes?: number;
}

const SANDBOX_NOTE =
  " Commands run in an OS sandbox: they can write only inside the workspace and a private /tmp (not the " +
  ".git folder nor other protected files there, so git add and git commit fail), cannot see the home " +
  "folder, have no network, and are stopped past their process, memory, output and disk limits; a " +
  'refusal says "blocked by sandbox". Do not try to get around it: ask the user instead.';

/** The placeholders a command cannot use here, as one error; undefined when all can be filled. */
function secretProblem(filled: {
  missing: string[];
  outOfScope: string[];
  unexpandable: string[];
}): ResonError | undefined {
  const problems = [
    ...filled.missing.map((name) => `${name} (no such secret)`),
    ...filled.outOfScope.map((name) => `${name} (not available to commands in this workspace)`),
    ...filled.unexpandable.map(
      (name) => `${name} (inside a quoted heredoc, where the shell expands nothing)`,
    ),
  ];
  if (problems.length === 0) return undefined;
  return new ResonError(
    "secret_unavailable",
    `Cannot fill in ${problems.join(", ")}; the command was not run.`,
    {
      hint: "Use only the secrets listed in the system prompt, in the command text (not in a quoted heredoc).",
    },
  );
}

const parameters = Type.Object(
  {
    command: Type.String({ minLength: 1, description: "The shell command line to run." }),
    timeout_ms: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: MAX_COMMAND_TIMEOUT_MS,
        description: `Time limit in milliseconds; default ${DEFAULT_COMMAND_TIMEOUT_MS}, at most ${MAX_COMMAND_TIMEOUT_MS}.`,
      }),
    ),
  },
  { additionalProperties: false },
);

function oneLine(command: string): string {
  const line = command.replace(/\s+/g, " ").trim();
  return line.length > 80 ? `${line.slice(0, 80)}…` : line;
}

/**
 * The command with its <secret> placeholders turned into environment variables (their values
 * in `extraEnv`, never on the command line); throws secret_unavailable for one that cannot be.
 */
export function commandWithSecrets(
  command: string,
  secrets: SecretAccess | undefined,
): { command: string; extraEnv?: Record<string, string> } {
  if (!secrets || !command.includes("<secret>")) return { command };
  const filled = secrets.forCommand(command);
  const problem = secretProblem(filled);
  if (problem) throw problem;
  return { command: filled.value, extraEnv: filled.env };
}

/**
 * What a command of this run may not change beyond the workspace's protected paths: once the run
 * has read untrusted content, the files that steer later runs and the installed packages too (the
 * protected list's "steers" and "installs").
 */
export function commandProtection(ctx: Pick<ToolContext, "untrusted">): {
  protectedKinds?: readonly ProtectedKind[];
} {
  return ctx.untrusted ? { protectedKinds: UNTRUSTED_PROTECTED_KINDS } : {};
}

export function createExecuteCommandTool(
  options: ExecuteCommandToolOptions = {},
): ToolDefinition<typeof parameters> {
  const defaultTimeoutMs = Math.min(
    options.defaultTimeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS,
    MAX_COMMAND_TIMEOUT_MS,
  );
  return {
    name: "execute_command",
    description:
      "Run a shell command (bash when available) in the workspace root and return its combined stdout and " +
      "stderr followed by the exit code. There is no terminal and no input: interactive programs will not " +
      `work. Times out after timeout_ms (default ${defaultTimeoutMs} ms, at most ${MAX_COMMAND_TIMEOUT_MS}); the ` +
      "command and everything it started are then stopped. A non-zero exit code makes the call fail, with the " +
      "output still shown. Long output keeps its beginning and end. The environment is minimal (no API keys " +
      "or tokens). Prefer the file tools for reading, searching and editing files." +
      (options.sandboxed ? SANDBOX_NOTE : ""),
    parameters,
    readOnly: false,
    // The user may change the command before it runs (the permission prompt's "edit").
    editableParams: ["command"],
    truncation: "head_and_tail",
    async execute(args, ctx) {
      const timeoutMs = args.timeout_ms ?? defaultTimeoutMs;
      const { command, extraEnv } = commandWithSecrets(args.command, ctx.secrets);
      const run = await ctx.workspace.runCommand(command, {
        timeoutMs,
        signal: ctx.signal,
        maxOutputBytes: COMMAND_OUTPUT_BYTES,
        ...(options.diskBytes === undefined ? {} : { diskBytes: options.diskBytes }),
        ...(extraEnv ? { extraEnv } : {}),
        ...(ctx.secrets ? { outputFilter: ctx.secrets.redactStream() } : {}),
        ...commandProtection(ctx),
      });
      if (run.aborted) throw abortError(ctx.signal);
      const output = run.output === "" ? "(no output)" : run.output.replace(/\n$/, "");
      const status = run.timedOut
        ? `[timed out after ${humanDuration(timeoutMs)}; stopped]`
        : run.outputLimitExceeded
          ? `[stopped: it wrote more than the output limit (${run.outputBytes} bytes)]`
          : run.diskLimitExceeded
            ? "[stopped by the disk quota]"
            : run.exitCode !== null
              ? `[exit code ${run.exitCode}]`
              : `[killed by ${run.signal}]`;
      const notes = [
        ...(run.sandboxDenial ? [`[${run.sandboxDenial}]`] : []),
        ...(run.warnings ?? []).map((warning) => `[sandbox: ${warning}]`),
      ];
      const content = [output, ...notes, status].join("\n");
      const longTermMemory = `ran \`${oneLine(args.command)}\`: ${status.slice(1, -1)}`;
      if (run.timedOut) {
        const error = new ResonError(
          "command_timeout",
          `The command did not finish within ${humanDuration(timeoutMs)} and was stopped.`,
          {
            hint: `Run long tasks in the background with output to a file (cmd > log 2>&1 &), or raise timeout_ms (at most ${MAX_COMMAND_TIMEOUT_MS}).`,
            details: { timeoutMs },
          },
        );
        return { content, longTermMemory, error, truncated: run.truncated };
      }
      if (run.exitCode !== 0) {
        const how =
          run.exitCode === null ? `was killed by ${run.signal}` : `exited with code ${run.exitCode}`;
        const error = new ResonError(
          "command_failed",
          `The command ${how}${run.sandboxDenial ? ` (${run.sandboxDenial})` : ""}.`,
          { details: { exitCode: run.exitCode, signal: run.signal, sandboxed: run.sandboxed } },
        );
        return { content, longTermMemory, error, truncated: run.truncated };
      }
      return { content, longTermMemory, truncated: run.truncated };
    },
  };
}
