// Which folder a run or the terminal works in: `-w` (a registered workspace's name or id, or a
// path), else $RESON_WORKSPACE (set by `reson workspace use`), else the current folder when
// it is a project, else the default workspace (made on first use), said on stderr. A folder
// given explicitly is never swapped for the default: `-w ~` is refused as it always was.
import { realpathSync } from "node:fs";
import { stat } from "node:fs/promises";
import { resolve } from "node:path";
import { openDefaultStore, workspaceStanding } from "../agent/index.js";
import { resonHome } from "../config/index.js";
import { ResonError } from "../core/errors.js";
import type { Store, WorkspaceRecord } from "../store/index.js";
import { WorkspaceManager } from "../workspaces/index.js";
import { WORKSPACE_ENV } from "./workspace-command.js";

export interface WorkspaceChoice {
  /** The folder to pass on as the workspace; undefined: the current folder, as before. */
  workspace?: string;
  /** The registered workspace worked in, if the folder is one. */
  registered?: WorkspaceRecord;
}

export interface ChooseOptions {
  /** -w/--workspace as given. */
  given: string | undefined;
  /** --trust-workspace: the user means the current folder, broad or not. */
  trustWorkspace: boolean;
  /** "default": outside any project, use the default workspace (run, terminal); "none": resume. */
  fallback: "default" | "none";
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  say: (line: string) => void;
}

/**
 * Chooses the workspace of a command's arguments (see chooseWorkspace) and puts the folder in
 * `args.workspace`; what reson chose for the user is said on stderr.
 */
export async function settleWorkspace(
  store: Store,
  args: { workspace?: string; trustWorkspace: boolean },
  fallback: ChooseOptions["fallback"],
): Promise<WorkspaceChoice> {
  const chosen = await chooseWorkspace(store, {
    given: args.workspace,
    trustWorkspace: args.trustWorkspace,
    fallback,
    say: (line) => process.stderr.write(`${line}\n`),
  });
  if (chosen.workspace) args.workspace = chosen.workspace;
  return chosen;
}

export async function chooseWorkspace(store: Store, options: ChooseOptions): Promise<WorkspaceChoice> {
  const env = options.env ?? process.env;
  const cwd = options.cwd ?? process.cwd();
  const manager = new WorkspaceManager({ store, env });
  const fromEnv = env[WORKSPACE_ENV]?.trim();
  const given = options.given ?? (options.fallback === "default" ? fromEnv || undefined : undefined);
  if (given !== undefined) {
    const resolved = await manager.resolve(given, cwd);
    if (resolved.note) options.say(`reson: ${resolved.note}`);
    if (options.given === undefined && !resolved.workspace) {
      throw new ResonError("workspace_invalid", `${WORKSPACE_ENV}=${given} names no registered workspace.`, {
        hint: `\`reson workspace list\` shows them; eval "$(reson workspace use <name>)" picks one, eval "$(reson workspace use --clear)" forgets it.`,
      });
    }
    if (resolved.workspace) await manager.touch(resolved.workspace);
    return { workspace: resolved.path, ...(resolved.workspace ? { registered: resolved.workspace } : {}) };
  }
  let here: string;
  try {
    here = realpathSync.native(cwd);
  } catch {
    return {}; // the run reports the missing folder, as before
  }
  const standing = options.trustWorkspace ? { kind: "ok" as const } : await workspaceStanding(here, env);
  if (standing.kind === "ok" || options.fallback === "none") {
    const registered = await manager.byPath(here);
    if (registered) await manager.touch(registered);
    return registered ? { registered } : {};
  }
  const { workspace, created } = await manager.ensureDefault();
  await manager.touch(workspace);
  const why = standing.kind === "refused" ? standing.error.details?.reason : standing.reason;
  options.say(
    `reson: ${here} is not a project folder (${String(why)}); working in the ${created ? "new " : ""}default workspace ${workspace.path}. Name a folder with -w to work elsewhere.`,
  );
  return { workspace: workspace.path, registered: workspace };
}

/**
 * The real path of the folder a run or the terminal works in, checked before anything starts
 * for it (plugins, MCP servers): a folder that is not there is a usage error, exit 2.
 */
export function existingWorkspaceFolder(given: string | undefined, cwd: string = process.cwd()): string {
  const folder = given ?? cwd;
  try {
    return realpathSync.native(resolve(cwd, folder));
  } catch {
    throw new ResonError("workspace_invalid", `The workspace folder ${folder} does not exist.`, {
      hint: "Create it, or give -w an existing folder or a registered workspace's name (`reson workspace list`).",
      details: { path: folder },
    });
  }
}

/**
 * The folder of a command that only looks at a workspace (skills, tools, doctor, mcp, plugin,
 * memory): `-w` as a folder when one is there, else a registered workspace's name or id; none
 * given: $RESON_WORKSPACE when set, else the current folder. The store is opened only to look
 * a name up.
 */
export async function workspaceFolderArg(
  given: string | undefined,
  env: NodeJS.ProcessEnv = process.env,
  cwd: string = process.cwd(),
): Promise<string> {
  const value = given ?? (env[WORKSPACE_ENV]?.trim() || undefined);
  if (value === undefined) return cwd;
  const asPath = resolve(cwd, value);
  if ((await stat(asPath).catch(() => undefined))?.isDirectory()) return asPath;
  const store = await openDefaultStore(resonHome(env), env);
  try {
    return (await new WorkspaceManager({ store, env }).resolve(value, cwd)).path;
  } finally {
    await store.close();
  }
}
