// Every subcommand's entry point, in one module: main.ts loads it for any command but
// --version and --help (the bundle has them all in one file, dist/cli-bundle/commands.cjs).
export { endChildren } from "../workspace/index.js";
export { acpCommand } from "./acp-command.js";
export { channelCommand } from "./channel-command.js";
export { doctorCommand } from "./doctor-command.js";
export { gcCommand } from "./gc-command.js";
export { mcpCommand } from "./mcp-command.js";
export { experiencesCommand, memoryCommand } from "./memory-commands.js";
export { permissionsCommand } from "./permissions-command.js";
export { pluginCommand } from "./plugin-command.js";
export { replCommand } from "./repl-command.js";
export { diffCommand, rewindCommand } from "./rewind-commands.js";
export { resumeCommand, runCommand } from "./run-command.js";
export { serveCommand } from "./serve-command.js";
export { skillsCommand } from "./skills-command.js";
export { sessionsCommand, traceCommand } from "./store-commands.js";
export { toolsCommand } from "./tools-command.js";
export { workerCommand } from "./worker-command.js";
export { workspaceCommand } from "./workspace-command.js";
