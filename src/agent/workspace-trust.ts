// Whether an agent may work in a folder. Never in `/`, a system folder or reson's own folder;
// in a broad one (the home folder, a folder above it, one holding $RESON_HOME) only once the
// user trusts it: in the interactive terminal, remembered, or for one run by
// `trustWorkspace` (--trust-workspace). A headless caller has no one to ask, so it is refused.
import { homedir } from "node:os";
import { isTrustedFolder, resonHome, trustedFoldersPath } from "../config/index.js";
import { ResonError, toResonError } from "../core/errors.js";
import { Workspace, type WorkspaceOptions, workspaceRootRisk } from "../workspace/index.js";

export type WorkspaceStanding =
  | { kind: "ok" }
  /** Never a workspace. */
  | { kind: "refused"; error: ResonError }
  /** A workspace once the user trusts it; `reason` says why it is broad. */
  | { kind: "needs_trust"; reason: string; error: ResonError };

const PROJECT_FOLDER = "Work in a project folder instead: cd into it, or name it with --workspace";

/** Where `root` (a real path) stands as a workspace for the user of `env`. */
export async function workspaceStanding(
  root: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<WorkspaceStanding> {
  const home = resonHome(env);
  const risk = workspaceRootRisk(root, { home: homedir(), resonHome: home });
  if (risk.kind === "none") return { kind: "ok" };
  if (risk.kind === "refused") {
    return {
      kind: "refused",
      error: new ResonError("workspace_refused", `reson will not work in ${root}: ${risk.reason}.`, {
        hint: `${PROJECT_FOLDER} (library: the workspace option). The agent's tools reach only the workspace, so make it the folder the task is about.`,
        details: { path: root, reason: risk.reason },
      }),
    };
  }
  if (await isTrustedFolder(home, root)) return { kind: "ok" };
  return {
    kind: "needs_trust",
    reason: risk.reason,
    error: new ResonError(
      "workspace_untrusted",
      `${root} is not a trusted workspace: ${risk.reason}, and the agent's tools could read and change everything in it.`,
      {
        hint: `${PROJECT_FOLDER}. Or trust this folder: start \`reson\` in it once and answer yes (remembered in ${trustedFoldersPath(home)}), or pass --trust-workspace for this run (library: trustWorkspace: true).`,
        details: { path: root, reason: risk.reason },
      },
    ),
  };
}

/** Opens the workspace folder; what is wrong with it is `workspace_invalid`. */
export async function openWorkspace(dir: string, options: WorkspaceOptions): Promise<Workspace> {
  try {
    return await Workspace.open(dir, options);
  } catch (error) {
    const cause = toResonError(error);
    throw new ResonError("workspace_invalid", cause.message, {
      cause,
      ...(cause.hint ? { hint: cause.hint } : {}),
      details: { path: dir },
    });
  }
}
