// Which defined servers may start: a user's own servers always; a project's only when the
// user approved this exact definition, running these very files, before (server-files.ts),
// named it with --allow-mcp, listed it in mcp.allowProjectServers of $RESON_HOME/config.json,
// or says yes when asked now.
import { ResonError } from "../core/errors.js";
import { namedList } from "../core/named-list.js";
import { printable } from "../core/printable-text.js";
import { approvalState, approve } from "./approval.js";
import type { McpServerEntry } from "./definitions.js";
import { type ServerFiles, serverFiles } from "./server-files.js";

export interface ServerSelection {
  start: McpServerEntry[];
  /** Project servers not started, and why (what would start them). */
  refused: { entry: McpServerEntry; reason: string }[];
}

export interface SelectServersOptions {
  home: string;
  /** The workspace's real path: approvals are per workspace. */
  workspace: string;
  /** --allow-mcp names. */
  allow: readonly string[];
  /** mcp.allowProjectServers from the user's own config file. */
  userAllowed: readonly string[];
  /** For `${VAR}` in a definition, as at the server's start (default: this process's). */
  env?: NodeJS.ProcessEnv;
  /** Asks the user about a project server; absent: no one to ask (headless). */
  ask?: (entry: McpServerEntry, review: ProjectServerReview) => Promise<boolean>;
}

/** What the user is shown when asked about a project server. */
export interface ProjectServerReview {
  /** The workspace files it runs (what the approval covers). */
  files: string[];
  /** Of those, what changed since the user approved the same definition (empty: never approved). */
  changed: string[];
  /** What could not be followed, if anything. */
  unfollowed?: string;
}

/** The changed files, named as they are (a run chose those names: what could steer a terminal is written out). */
function changedReason(changed: readonly string[]): string {
  return `${namedList(changed.map(printable), 3)} changed since you approved it`;
}

export async function selectServers(
  entries: McpServerEntry[],
  options: SelectServersOptions,
): Promise<ServerSelection> {
  const selection: ServerSelection = { start: [], refused: [] };
  for (const entry of entries) {
    if (entry.config.enabled === false) continue;
    if (entry.scope === "user") {
      selection.start.push(entry);
      continue;
    }
    const named = options.allow.includes(entry.name) || options.userAllowed.includes(entry.name);
    if (named) {
      selection.start.push(entry);
      continue;
    }
    const files: ServerFiles = await serverFiles(
      entry.config,
      options.workspace,
      options.env ?? process.env,
      {
        home: options.home,
      },
    );
    const state = await approvalState(options.home, options.workspace, entry.name, entry.config, files);
    if (state.approved) {
      selection.start.push(entry);
      continue;
    }
    const review: ProjectServerReview = {
      files: Object.keys(files.files),
      changed: state.changed,
      ...(files.unfollowed ? { unfollowed: files.unfollowed } : {}),
    };
    if (options.ask && (await options.ask(entry, review))) {
      await approve(options.home, options.workspace, entry.name, entry.config, files);
      selection.start.push(entry);
      continue;
    }
    selection.refused.push({
      entry,
      reason: options.ask
        ? "you did not approve it"
        : state.changed.length > 0
          ? `it is defined by the project (${entry.source}) and runs workspace files a run can change: ${changedReason(state.changed)}; look at the change, then approve it again in the terminal (\`reson mcp test ${entry.name}\`)`
          : `it is defined by the project (${entry.source}) and not approved; pass --allow-mcp ${entry.name}, or approve it once in the terminal (\`reson mcp test ${entry.name}\`)`,
    });
  }
  const required = selection.refused.find((r) => r.entry.config.required);
  if (required)
    throw new ResonError(
      "mcp_unavailable",
      `The required MCP server "${required.entry.name}" was not started: ${required.reason}.`,
      {
        hint: `Approve it (--allow-mcp ${required.entry.name}) or mark it not required.`,
        details: { server: required.entry.name },
      },
    );
  return selection;
}
