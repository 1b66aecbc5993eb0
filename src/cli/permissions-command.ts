// `reson permissions [-w dir]`: the rules and mode a run in this workspace gets, where each comes
// from, and what the workspace's own settings files grant that waits for approval.
// `reson permissions approve [-w dir] [--yes]`: approves that, after showing it (a terminal is
// asked; scripts pass --yes). A cloned repository ships .reson/settings.json, so what it allows
// applies only once you said so on this machine.
import { resonHome } from "../config/index.js";
import { ResonError, toResonError } from "../core/errors.js";
import {
  describeHeld,
  describePolicy,
  grantProject,
  type HeldGrant,
  loadPermissionSettings,
  realRoot,
} from "../permissions/index.js";
import { parseCommandArgs } from "./command-args.js";
import { confirm } from "./confirm.js";
import { EXIT_OK, EXIT_USAGE, exitCodeForError } from "./exit-codes.js";
import { reportError } from "./run-command.js";
import { existingWorkspaceFolder, workspaceFolderArg } from "./workspace-choice.js";

const USAGE = "Usage: reson permissions [show] [-w dir]  |  reson permissions approve [-w dir] [--yes]";

/** Approves every held grant for the workspace at `root` (its real path). */
export async function approveHeld(home: string, root: string, held: readonly HeldGrant[]): Promise<void> {
  await grantProject(home, realRoot(root), {
    allow: held.flatMap((grant) => grant.allow),
    modes: held.flatMap((grant) => (grant.mode ? [grant.mode] : [])),
  });
}

export async function permissionsCommand(argv: string[]): Promise<number> {
  let parsed: { action: string | undefined; workspace: string | undefined; yes: boolean };
  try {
    const { values, positionals } = parseCommandArgs(
      {
        args: argv,
        strict: true,
        allowPositionals: true,
        options: { workspace: { type: "string", short: "w" }, yes: { type: "boolean", short: "y" } },
      },
      USAGE,
    );
    const [action, ...extra] = positionals;
    if ((action !== undefined && action !== "approve" && action !== "show") || extra.length > 0)
      throw new ResonError(
        "usage_error",
        `Unknown permissions action ${JSON.stringify(positionals.join(" "))}.`,
        {
          hint: USAGE,
        },
      );
    parsed = { action, workspace: values.workspace, yes: values.yes === true };
  } catch (error) {
    reportError(toResonError(error, "usage_error"));
    return EXIT_USAGE;
  }
  try {
    // A folder, or a registered workspace's name (as every command's -w takes).
    const root = existingWorkspaceFolder(await workspaceFolderArg(parsed.workspace));
    const home = resonHome();
    const policy = await loadPermissionSettings({ workspaceRoot: root, home });
    const held = policy.held ?? [];
    if (parsed.action !== "approve") {
      process.stdout.write(`${describePolicy(policy)}\n`);
      return EXIT_OK;
    }
    if (held.length === 0) {
      process.stdout.write(
        `Nothing to approve: this workspace's settings files grant nothing you have not approved (${root}).\n`,
      );
      return EXIT_OK;
    }
    const what = `what this workspace's settings files grant, for runs in ${root}:\n${describeHeld(held)}\n`;
    if (!parsed.yes) {
      if (process.stdin.isTTY !== true)
        throw new ResonError("usage_error", "There is no terminal to ask whether to approve these rules.", {
          hint: "Read them with `reson permissions`, then pass --yes to approve them.",
        });
      process.stdout.write(`This approves ${what}`);
      if (!(await confirm("Approve them?"))) {
        process.stdout.write("Nothing approved.\n");
        return EXIT_OK;
      }
    }
    await approveHeld(home, root, held);
    process.stdout.write(`Approved ${what}A change to these files that grants more waits for you again.\n`);
    return EXIT_OK;
  } catch (error) {
    const failure = toResonError(error);
    reportError(failure);
    return exitCodeForError(failure.code);
  }
}
