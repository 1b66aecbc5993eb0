// The built-in tools: files and commands, the goal tree, paging through artifacts, web_fetch
// and ask_human (skill and subagent come with their own modules).
import type { ToolDefinition } from "../types.js";
import { createAskHumanTool } from "./ask-human.js";
import { editFileTool } from "./edit-file.js";
import { createExecuteCommandTool } from "./execute-command.js";
import { globTool } from "./glob.js";
import { goalTool } from "./goal.js";
import { createGrepTool } from "./grep.js";
import { listFilesTool } from "./list-files.js";
import { readArtifactTool } from "./read-artifact.js";
import { readFileTool } from "./read-file.js";
import { createWebFetchTool } from "./web-fetch.js";
import { writeFileTool } from "./write-file.js";

export interface BuiltinToolsOptions {
  /** execute_command's timeout when the call gives none; default 120 s, at most 600 s. */
  commandTimeoutMs?: number;
  /** How much one command may grow the use of the workspace's disk; default the workspace's. */
  commandDiskBytes?: number;
  /** grep's engine: "auto" (default) uses ripgrep when installed; "js" forces the built-in search. */
  grepEngine?: "auto" | "ripgrep" | "js";
  /** Commands run in the OS sandbox (execute_command says so to the model). */
  commandSandbox?: boolean;
  /** Loopback and private hosts web_fetch may request (config web.allowPrivateHosts). */
  allowPrivateHosts?: readonly string[];
}

export function createBuiltinTools(options: BuiltinToolsOptions = {}): ToolDefinition[] {
  return [
    listFilesTool,
    readFileTool,
    writeFileTool,
    editFileTool,
    globTool,
    createGrepTool({ engine: options.grepEngine ?? "auto" }),
    createExecuteCommandTool({
      ...(options.commandTimeoutMs === undefined ? {} : { defaultTimeoutMs: options.commandTimeoutMs }),
      ...(options.commandSandbox ? { sandboxed: true } : {}),
      ...(options.commandDiskBytes === undefined ? {} : { diskBytes: options.commandDiskBytes }),
    }),
    goalTool,
    readArtifactTool,
    createWebFetchTool(options.allowPrivateHosts ? { allowPrivateHosts: options.allowPrivateHosts } : {}),
    createAskHumanTool(),
  ];
}

export {
  COMMAND_OUTPUT_BYTES,
  commandProtection,
  commandWithSecrets,
  MAX_COMMAND_TIMEOUT_MS,
} from "./execute-command.js";
export { DEFAULT_READ_LIMIT } from "./line-range.js";
