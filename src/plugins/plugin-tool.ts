// A plugin's tool as reson's other tools are: a ToolDefinition, so the registry validates its
// arguments, the permission gate decides on it, and its output is truncated, counted and masked
// of secrets on the one path every call takes. Its commands go through the workspace's runner.
import type { TSchema } from "typebox";
import { abortError } from "../core/abort.js";
import { ResonError } from "../core/errors.js";
import { validatorFor } from "../core/schema-validator.js";
import {
  COMMAND_OUTPUT_BYTES,
  commandProtection,
  commandWithSecrets,
  type ToolContext,
  type ToolDefinition,
} from "../tools/index.js";
import type { PluginCommandResult, PluginTool, PluginToolContext } from "./api.js";

/** Tool names every provider accepts (the registry's rule, checked when the plugin registers). */
const TOOL_NAME = /^[A-Za-z0-9_-]{1,64}$/;

/** Why `tool` cannot be registered as it is; undefined when it can. */
export function pluginToolProblem(tool: unknown): string | undefined {
  if (typeof tool !== "object" || tool === null) return "registerTool was given something that is not a tool";
  const t = tool as Partial<PluginTool>;
  if (typeof t.name !== "string" || !TOOL_NAME.test(t.name))
    return `a tool name must be 1 to 64 characters of A-Z, a-z, 0-9, "_" and "-" (got ${JSON.stringify(t.name)})`;
  if (typeof t.description !== "string" || t.description.trim() === "")
    return `the tool "${t.name}" has no description`;
  if (typeof t.parameters !== "object" || t.parameters === null || Array.isArray(t.parameters))
    return `the tool "${t.name}" has no "parameters" JSON Schema object`;
  if (typeof t.execute !== "function") return `the tool "${t.name}" has no execute function`;
  try {
    // Compiled now, so a schema that cannot be used fails the plugin's load, not a run's step.
    validatorFor(t.parameters as TSchema).Check({});
  } catch (error) {
    return `the tool "${t.name}" has parameters that are not a usable JSON Schema (${(error as Error).message})`;
  }
  return undefined;
}

function commandRunner(ctx: ToolContext): PluginToolContext["run"] {
  return async (command, options = {}) => {
    // <secret> placeholders are filled as in execute_command: through the environment.
    const filled = commandWithSecrets(command, ctx.secrets);
    const run = await ctx.workspace.runCommand(filled.command, {
      signal: ctx.signal,
      maxOutputBytes: COMMAND_OUTPUT_BYTES,
      ...(filled.extraEnv ? { extraEnv: filled.extraEnv } : {}),
      ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
      ...(ctx.secrets ? { outputFilter: ctx.secrets.redactStream() } : {}),
      ...commandProtection(ctx),
    });
    if (run.aborted) throw abortError(ctx.signal);
    const result: PluginCommandResult = {
      output: run.outputLimitExceeded
        ? `${run.output}\n[stopped: it wrote more than the output limit (${run.outputBytes} bytes)]`
        : run.output,
      exitCode: run.exitCode,
      timedOut: run.timedOut,
    };
    if (run.sandboxDenial) result.sandboxDenial = run.sandboxDenial;
    return result;
  };
}

export function pluginToolDefinition(plugin: string, tool: PluginTool): ToolDefinition {
  return {
    name: tool.name,
    description: tool.description,
    parameters: tool.parameters as TSchema,
    // A plugin's tool may do anything: it is gated like a writing tool unless it says otherwise.
    readOnly: tool.readOnly === true,
    // Its code may read anything (an API, a page): untrusted content unless the plugin says not.
    external: tool.external !== false,
    async execute(args, ctx) {
      const output = await tool.execute(args as Record<string, unknown>, {
        signal: ctx.signal,
        runId: ctx.runId,
        toolCallId: ctx.toolCallId,
        workspace: ctx.workspace.root,
        run: commandRunner(ctx),
      });
      if (typeof output !== "string")
        throw new ResonError(
          "plugin_failed",
          `The tool ${tool.name} of the plugin "${plugin}" returned ${output === null ? "null" : typeof output}, not text.`,
          {
            hint: `Report it to the plugin's author, or disable it with \`reson plugin disable ${plugin}\`.`,
          },
        );
      return { content: output };
    },
  };
}
