// `reson skills`: the skills found for a workspace, where each came from, on or off, the core
// skill, and a warning (with the path and the reason) for every skill that did not load.
import { homedir } from "node:os";
import { resonHome } from "../config/index.js";
import { ResonError, toResonError } from "../core/errors.js";
import { pluginSkillFolders } from "../plugins/index.js";
import { discoverSkills, formatSkillList } from "../skills/index.js";
import { Workspace } from "../workspace/index.js";
import { parseCommandArgs } from "./command-args.js";
import { EXIT_OK, EXIT_USAGE, exitCodeForError } from "./exit-codes.js";
import { reportError } from "./run-command.js";
import { workspaceFolderArg } from "./workspace-choice.js";

export async function skillsCommand(argv: string[]): Promise<number> {
  let workspace: string | undefined;
  let json = false;
  try {
    const { values } = parseCommandArgs(
      {
        args: argv,
        strict: true,
        options: { workspace: { type: "string", short: "w" }, json: { type: "boolean" } },
      },
      "Usage: reson skills [-w dir] [--json]",
    );
    workspace = values.workspace;
    json = values.json === true;
  } catch (error) {
    reportError(toResonError(error, "usage_error"));
    return EXIT_USAGE;
  }
  try {
    const root = await Workspace.open(await workspaceFolderArg(workspace)).catch((error: unknown) => {
      throw new ResonError("workspace_invalid", toResonError(error).message);
    });
    const home = resonHome();
    const found = await discoverSkills({
      workspaceRoot: root.root,
      home,
      userHome: homedir(),
      pluginFolders: await pluginSkillFolders({ home, workspace: root.root }),
    });
    if (json) {
      for (const skill of found.skills) {
        const { body: _body, ...rest } = skill;
        process.stdout.write(`${JSON.stringify(rest)}\n`);
      }
      for (const warning of found.warnings) process.stderr.write(`warning: ${warning}\n`);
      return EXIT_OK;
    }
    process.stdout.write(`${formatSkillList(found)}\n`);
    return EXIT_OK;
  } catch (error) {
    const failure = toResonError(error);
    reportError(failure);
    return exitCodeForError(failure.code);
  }
}
