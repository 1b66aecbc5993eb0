// `reson mcp list|add|remove|test`: the MCP servers this workspace would use, where each is
// defined, whether it starts, its tools and what their schemas cost in context; adding and
// removing a server in the user's config ($RESON_HOME/config.json) or the project's
// .mcp.json (Claude Code's format, so the file works there too); and starting one alone.
import { mkdir, readFile, realpath } from "node:fs/promises";
import { join } from "node:path";
import { createInterface } from "node:readline/promises";
import { loadConfig, type McpServerConfig, resonHome } from "../config/index.js";
import { writeFileAtomic } from "../core/atomic-write.js";
import { ResonError, toResonError } from "../core/errors.js";
import { printable } from "../core/printable-text.js";
import {
  approvalState,
  type McpServerEntry,
  McpServers,
  mcpServerEntries,
  PROJECT_MCP_FILE,
  type ProjectServerReview,
  selectServers,
  serverFiles,
  toolsSchemaTokens,
} from "../mcp/index.js";
import {
  approveProjectServer,
  mcpLogFile,
  terminalAuthorize,
  userAllowedProjectServers,
} from "../runner/index.js";
import { parseCommandArgs } from "./command-args.js";
import { didYouMean } from "./did-you-mean.js";
import { EXIT_FAILED, EXIT_OK, EXIT_USAGE, exitCodeForError } from "./exit-codes.js";
import { formatTokens, table } from "./format.js";
import { reportError } from "./run-command.js";
import { workspaceFolderArg } from "./workspace-choice.js";

const USAGE = `Usage:
  reson mcp list [-w dir] [--json]        servers, where defined, status, tools, schema tokens
  reson mcp add [--scope user|project] [--env K=V] [--header 'K: V'] <name> -- <command> [args...]
  reson mcp add [--scope user|project] [--transport http|sse] [--header 'K: V'] <name> <url>
  reson mcp remove [--scope user|project] <name>
  reson mcp test <name> [-w dir] [--allow-mcp <name>]   start it alone and list its tools
Scope user (default): $RESON_HOME/config.json; project: .mcp.json in the workspace.
Use \${VAR} for secrets (expanded when the server starts); never write a token itself.
`;

async function workspaceRealPath(dir: string | undefined): Promise<string> {
  const path = await workspaceFolderArg(dir);
  try {
    return await realpath(path);
  } catch {
    throw new ResonError("usage_error", `The workspace ${path} does not exist.`, {
      hint: "Pass an existing folder with -w, or run reson mcp inside the workspace.",
    });
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

async function readJson(file: string): Promise<Record<string, unknown>> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return {};
    throw error;
  }
  try {
    const parsed: unknown = JSON.parse(text);
    if (isRecord(parsed)) return parsed;
  } catch {
    // said below
  }
  throw new ResonError("config_invalid", `${file} is not a JSON object.`, {
    hint: "Fix it, then try again.",
  });
}

async function writeJson(file: string, value: unknown, dirMode: number): Promise<void> {
  await mkdir(join(file, ".."), { recursive: true, mode: dirMode });
  await writeFileAtomic(file, `${JSON.stringify(value, null, 2)}\n`);
}

/** The servers object of a scope's file, and how to write it back. */
async function scopeFile(scope: string, workspace: string) {
  if (scope === "project") {
    const file = join(workspace, PROJECT_MCP_FILE);
    const doc = await readJson(file);
    const servers = isRecord(doc.mcpServers) ? doc.mcpServers : {};
    return { file, servers, save: () => writeJson(file, { ...doc, mcpServers: servers }, 0o755) };
  }
  if (scope !== "user")
    throw new ResonError("usage_error", `--scope takes user or project, got ${JSON.stringify(scope)}.`);
  const home = resonHome();
  const file = join(home, "config.json");
  const doc = await readJson(file);
  const mcp = isRecord(doc.mcp) ? doc.mcp : {};
  const servers = isRecord(mcp.servers) ? mcp.servers : {};
  return { file, servers, save: () => writeJson(file, { ...doc, mcp: { ...mcp, servers } }, 0o700) };
}

function keyValues(values: string[], separator: string, flag: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const item of values) {
    const at = item.indexOf(separator);
    if (at <= 0)
      throw new ResonError(
        "usage_error",
        `${flag} takes NAME${separator}VALUE, got ${JSON.stringify(item)}.`,
      );
    out[item.slice(0, at).trim()] = item.slice(at + separator.length).trim();
  }
  return out;
}

async function addCommand(argv: string[]): Promise<number> {
  const dash = argv.indexOf("--");
  const own = dash < 0 ? argv : argv.slice(0, dash);
  const command = dash < 0 ? [] : argv.slice(dash + 1);
  const { values, positionals } = parseCommandArgs(
    {
      args: own,
      allowPositionals: true,
      options: {
        scope: { type: "string", short: "s" },
        transport: { type: "string", short: "t" },
        env: { type: "string", short: "e", multiple: true },
        header: { type: "string", short: "H", multiple: true },
        workspace: { type: "string", short: "w" },
      },
    },
    USAGE,
  );
  const [name, url] = positionals;
  if (!name || (!url && command.length === 0) || (url && command.length > 0))
    throw new ResonError("usage_error", "reson mcp add takes a name and either a URL or -- and a command.", {
      hint: USAGE,
    });
  if (!/^[A-Za-z0-9_.-]+$/.test(name))
    throw new ResonError("usage_error", `A server name may only use letters, digits, "_", "." and "-".`);
  const server: McpServerConfig = url
    ? { type: values.transport === "sse" ? "sse" : "http", url }
    : { command: command[0] as string, ...(command.length > 1 ? { args: command.slice(1) } : {}) };
  if (values.transport && !["http", "sse", "stdio"].includes(values.transport))
    throw new ResonError(
      "usage_error",
      `--transport takes stdio, http or sse, got ${JSON.stringify(values.transport)}.`,
    );
  if (values.env?.length) server.env = keyValues(values.env, "=", "--env");
  if (values.header?.length) server.headers = keyValues(values.header, ":", "--header");
  const scope = values.scope ?? "user";
  const target = await scopeFile(scope, await workspaceRealPath(values.workspace));
  const existed = Object.hasOwn(target.servers, name);
  target.servers[name] = server;
  await target.save();
  process.stdout.write(`${existed ? "Replaced" : "Added"} MCP server "${name}" in ${target.file}.\n`);
  return EXIT_OK;
}

async function removeCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs(
    {
      args: argv,
      allowPositionals: true,
      options: { scope: { type: "string", short: "s" }, workspace: { type: "string", short: "w" } },
    },
    USAGE,
  );
  const name = positionals[0];
  if (!name) throw new ResonError("usage_error", "reson mcp remove takes a server name.", { hint: USAGE });
  const target = await scopeFile(values.scope ?? "user", await workspaceRealPath(values.workspace));
  if (!Object.hasOwn(target.servers, name)) {
    throw new ResonError("not_found", `There is no MCP server "${name}" in ${target.file}.`, {
      hint: "`reson mcp list` shows where each server is defined (--scope project for .mcp.json).",
    });
  }
  delete target.servers[name];
  await target.save();
  process.stdout.write(`Removed MCP server "${name}" from ${target.file}.\n`);
  return EXIT_OK;
}

interface ServerRow {
  name: string;
  scope: string;
  source: string;
  transport: string;
  status: string;
  tools: number;
  schemaTokens: number;
  error?: string;
  /** A project server approved before whose files changed since: those files. */
  changed?: string[];
}

function transportOf(config: McpServerConfig): string {
  return config.url === undefined ? "stdio" : config.type === "sse" ? "sse" : "http";
}

async function entriesOf(workspace: string) {
  const loaded = await loadConfig({ workspace });
  const warnings: string[] = [];
  const entries = await mcpServerEntries(loaded, workspace, warnings);
  for (const warning of warnings) process.stderr.write(`warning: ${warning}\n`);
  return { loaded, entries };
}

/**
 * Whether a server may start without asking; when not, the files it runs that changed since
 * the user approved the same definition (none: never approved).
 */
async function mayStart(
  entry: McpServerEntry,
  workspace: string,
  allowed: readonly string[],
): Promise<{ approved: boolean; changed: string[] }> {
  if (entry.scope === "user" || allowed.includes(entry.name)) return { approved: true, changed: [] };
  const home = resonHome();
  const files = await serverFiles(entry.config, workspace, process.env, { home });
  return approvalState(home, workspace, entry.name, entry.config, files);
}

async function listCommand(argv: string[]): Promise<number> {
  const { values } = parseCommandArgs(
    {
      args: argv,
      options: { workspace: { type: "string", short: "w" }, json: { type: "boolean" } },
    },
    USAGE,
  );
  const workspace = await workspaceRealPath(values.workspace);
  const { loaded, entries } = await entriesOf(workspace);
  const allowed = userAllowedProjectServers(loaded);
  const rows: ServerRow[] = [];
  for (const entry of entries) {
    const row: ServerRow = {
      name: entry.name,
      scope: entry.scope,
      source: entry.source,
      transport: transportOf(entry.config),
      status: "",
      tools: 0,
      schemaTokens: 0,
    };
    rows.push(row);
    if (entry.config.enabled === false) {
      row.status = "disabled";
      continue;
    }
    const state = await mayStart(entry, workspace, allowed);
    if (!state.approved) {
      // Approved before, but a file it runs changed since: approve it again once you looked.
      row.status = state.changed.length > 0 ? "changed since approved" : "needs approval";
      if (state.changed.length > 0) row.changed = state.changed;
      continue;
    }
    try {
      const servers = await McpServers.start([{ ...entry, config: { ...entry.config, required: true } }], {
        env: process.env,
        cwd: workspace,
        signal: AbortSignal.timeout(entry.config.startupTimeoutMs ?? 30_000),
        oauth: { home: resonHome() },
      });
      const tools = servers.tools();
      row.status = "ok";
      row.tools = tools.length;
      row.schemaTokens = toolsSchemaTokens(tools);
      await servers.close();
    } catch (error) {
      row.status = "failed";
      row.error = toResonError(error).message;
    }
  }
  if (values.json) {
    process.stdout.write(`${JSON.stringify({ servers: rows })}\n`);
    return EXIT_OK;
  }
  if (rows.length === 0) {
    process.stdout.write(`No MCP servers defined for ${workspace}.\n${USAGE}`);
    return EXIT_OK;
  }
  const lines = [["server", "scope", "transport", "status", "tools", "schema tokens", "defined in"]];
  for (const row of rows)
    lines.push([
      row.name,
      row.scope,
      row.transport,
      row.status,
      row.status === "ok" ? String(row.tools) : "-",
      row.status === "ok" ? formatTokens(row.schemaTokens) : "-",
      row.source,
    ]);
  process.stdout.write(`${table(lines)}\n`);
  for (const row of rows) if (row.error) process.stdout.write(`${row.name}: ${row.error}\n`);
  for (const row of rows)
    if (row.changed)
      process.stdout.write(
        `${row.name}: ${row.changed.map(printable).join(", ")} changed since you approved it; look at the change, then \`reson mcp test ${row.name}\` asks again.\n`,
      );
  const total = rows.reduce((sum, r) => sum + r.schemaTokens, 0);
  if (total > 0) process.stdout.write(`All MCP tool schemas: ${formatTokens(total)} tokens.\n`);
  return EXIT_OK;
}

/**
 * Why `reson mcp test` could not start the server, said for this command: the server's own
 * error (not the "required" wrapper it was started with), and a hint that does not send the
 * user back to the command they just ran.
 */
function testFailure(failure: ResonError, source: string): ResonError {
  const cause = failure.cause instanceof ResonError ? failure.cause : failure;
  const own = (cause.hint ?? "").replace(/;?\s*`reson mcp test [^`]*`[^.;]*[.;]?/g, "").trim();
  const hint = own
    ? own.replace(/([^.])$/, "$1.")
    : `What the server printed is above. Check its command, args and env (or url and headers) in ${source}.`;
  return new ResonError(cause.code, cause.message, {
    hint,
    ...(cause.details ? { details: cause.details } : {}),
    cause,
  });
}

async function testCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs(
    {
      args: argv,
      allowPositionals: true,
      options: { workspace: { type: "string", short: "w" }, "allow-mcp": { type: "string", multiple: true } },
    },
    USAGE,
  );
  const name = positionals[0];
  if (!name) throw new ResonError("usage_error", "reson mcp test takes a server name.", { hint: USAGE });
  const workspace = await workspaceRealPath(values.workspace);
  const { loaded, entries } = await entriesOf(workspace);
  const entry = entries.find((e) => e.name === name);
  if (!entry)
    throw new ResonError("not_found", `No MCP server "${name}" is defined for ${workspace}.`, {
      hint: "`reson mcp list` shows the defined servers; `reson mcp add` adds one.",
    });
  const allowed = [...userAllowedProjectServers(loaded), ...(values["allow-mcp"] ?? [])];
  if (!(await mayStart(entry, workspace, allowed)).approved) {
    const interactive = process.stdin.isTTY === true;
    const rl = interactive ? createInterface({ input: process.stdin, output: process.stdout }) : undefined;
    try {
      const selection = await selectServers([entry], {
        home: resonHome(),
        workspace,
        allow: allowed,
        userAllowed: [],
        ...(rl
          ? {
              ask: (e: McpServerEntry, review: ProjectServerReview) =>
                approveProjectServer(e, review, {
                  write: (text) => process.stdout.write(text),
                  read: (q) => rl.question(q).catch(() => null),
                }),
            }
          : {}),
      });
      if (selection.start.length === 0) {
        process.stderr.write(`reson: MCP server "${name}" not started: ${selection.refused[0]?.reason}.\n`);
        return EXIT_FAILED;
      }
    } finally {
      rl?.close();
    }
  }
  const log = mcpLogFile(resonHome(), name);
  process.stdout.write(`Starting "${name}" (${transportOf(entry.config)}, from ${entry.source})…\n`);
  let servers: McpServers;
  try {
    servers = await McpServers.start([{ ...entry, config: { ...entry.config, required: true } }], {
      env: process.env,
      cwd: workspace,
      signal: new AbortController().signal,
      onStderr: (_server, text) => process.stderr.write(text),
      oauth: {
        home: resonHome(),
        ...(process.stdin.isTTY
          ? { authorize: terminalAuthorize((text) => process.stdout.write(text)) }
          : {}),
      },
    });
  } catch (error) {
    reportError(testFailure(toResonError(error), entry.source));
    return EXIT_FAILED;
  }
  try {
    const tools = servers.tools();
    const started = servers.get(name);
    process.stdout.write(
      `OK: ${tools.length} tools, schemas ${formatTokens(toolsSchemaTokens(tools))} tokens.\n`,
    );
    for (const tool of tools) {
      const line = tool.description.split("\n", 1)[0] ?? "";
      process.stdout.write(
        `  ${tool.name}${tool.readOnly ? " (read-only hint)" : ""}  ${line.slice(0, 80)}\n`,
      );
    }
    const prompts = await servers.prompts(AbortSignal.timeout(10_000)).catch(() => []);
    if (prompts.length > 0) process.stdout.write(`Prompts (slash commands in the terminal):\n`);
    for (const command of prompts) {
      const args = command.prompt.arguments
        .map((a) => (a.required ? `<${a.name}>` : `[${a.name}]`))
        .join(" ");
      process.stdout.write(`  /${command.name}${args ? ` ${args}` : ""}\n`);
    }
    if (started && started.resources.length > 0)
      process.stdout.write(
        `Resources: ${started.resources.length} (the model reads them with read_resource).\n`,
      );
    if (started?.connection.transport === "stdio")
      process.stdout.write(`In a run, its stderr goes to ${log}.\n`);
    return EXIT_OK;
  } finally {
    await servers.close();
  }
}

export async function mcpCommand(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  try {
    switch (sub) {
      case "list":
        return await listCommand(rest);
      case "add":
        return await addCommand(rest);
      case "remove":
        return await removeCommand(rest);
      case "test":
        return await testCommand(rest);
      case undefined:
      case "help":
      case "--help":
      case "-h":
        process.stdout.write(USAGE);
        return sub === undefined ? EXIT_USAGE : EXIT_OK;
      default:
        process.stderr.write(
          `reson: unknown mcp command "${sub}".${didYouMean(sub, ["list", "add", "remove", "test"])}\n${USAGE}`,
        );
        return EXIT_USAGE;
    }
  } catch (error) {
    const failure = toResonError(error, "usage_error");
    reportError(failure);
    return exitCodeForError(failure.code);
  }
}
