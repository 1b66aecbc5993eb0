// `reson workspace …`: registered workspaces (create, list, show, default, rename, remove, use,
// settings, templates). `use` cannot change the shell it was started from, so it prints the line that
// does (`eval "$(reson workspace use notes)"` sets RESON_WORKSPACE for that terminal).
import { createInterface } from "node:readline/promises";
import { resonHome } from "../config/index.js";
import { ResonError } from "../core/errors.js";
import { approveTemplateSettings } from "../permissions/index.js";
import type { WorkspaceRecord } from "../store/index.js";
import { listTemplates, WorkspaceManager } from "../workspaces/index.js";
import { didYouMean } from "./did-you-mean.js";
import { EXIT_OK, EXIT_USAGE } from "./exit-codes.js";
import { formatAgo, table } from "./format.js";
import { withStore } from "./store-commands.js";

export const WORKSPACE_ENV = "RESON_WORKSPACE";

const USAGE = `Usage:
  reson workspace create <name> [--template T] [--path DIR] [--default]
  reson workspace list [--json]
  reson workspace show <name|id> [--json]
  reson workspace default [<name|id>]
  reson workspace rename <name|id> <new-name>
  reson workspace remove <name|id> [--delete-files [--yes]]
  reson workspace use <name|id>|--clear      (eval "$(reson workspace use <name>)")
  reson workspace settings <name|id> [key=value ...] [--unset key ...] [--json]
  reson workspace templates
`;

const OPTIONS = {
  template: { type: "string", short: "t" },
  path: { type: "string" },
  default: { type: "boolean" },
  json: { type: "boolean" },
  "delete-files": { type: "boolean" },
  yes: { type: "boolean", short: "y" },
  clear: { type: "boolean" },
  unset: { type: "string", multiple: true },
  help: { type: "boolean", short: "h" },
} as const;

function usage(message: string): ResonError {
  return new ResonError("usage_error", message, { hint: USAGE.trimEnd() });
}

function out(text: string): void {
  process.stdout.write(text.endsWith("\n") ? text : `${text}\n`);
}

function describe(w: WorkspaceRecord): string {
  return [
    `${w.name}${w.isDefault ? " (default)" : ""}`,
    `  id        ${w.id}`,
    `  folder    ${w.path}`,
    `  template  ${w.template ?? "-"}`,
    `  settings  ${Object.keys(w.settings).length > 0 ? JSON.stringify(w.settings) : "-"}`,
    `  created   ${new Date(w.createdAt).toISOString()}${w.createdByReson ? " (folder made by reson)" : ""}`,
    `  last used ${w.lastUsedAt ? `${new Date(w.lastUsedAt).toISOString()} (${formatAgo(w.lastUsedAt)})` : "never"}`,
  ].join("\n");
}

/** A shell word: single quotes, with any single quote closed, escaped and reopened. */
function shellQuote(value: string): string {
  return `'${value.replaceAll("'", `'\\''`)}'`;
}

async function confirmDeletion(workspace: WorkspaceRecord): Promise<boolean> {
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    const answer = await rl.question(
      `Delete ${workspace.path} and everything in it? This cannot be undone. Type the workspace's name (${workspace.name}) to confirm: `,
    );
    return answer.trim() === workspace.name;
  } finally {
    rl.close();
  }
}

export function workspaceCommand(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === undefined || sub === "--help" || sub === "-h" || sub === "help") {
    process.stdout.write(USAGE);
    return Promise.resolve(sub === undefined ? EXIT_USAGE : EXIT_OK);
  }
  return withStore(rest, OPTIONS, async (store, values, positionals) => {
    if (values.help) {
      process.stdout.write(USAGE);
      return EXIT_OK;
    }
    const manager = new WorkspaceManager({ store });
    const [first, second] = positionals;
    const need = (count: number, what: string) => {
      if (positionals.length !== count) throw usage(`reson workspace ${sub} takes ${what}.`);
    };
    switch (sub) {
      case "create": {
        need(1, "one name");
        const { workspace, skipped, fromUserTemplate } = await manager.create({
          name: first!,
          ...(typeof values.template === "string" ? { template: values.template } : {}),
          ...(typeof values.path === "string" ? { path: values.path } : {}),
          ...(values.default === true ? { makeDefault: true } : {}),
        });
        // The user's own template: what its settings grant is theirs, approved with it.
        const approved = await approveTemplateSettings(resonHome(), workspace.path, fromUserTemplate);
        if (values.json) out(JSON.stringify(workspace));
        else {
          out(
            `Created workspace ${workspace.name} (${workspace.id}) in ${workspace.path}, template ${workspace.template}.`,
          );
          if (skipped.length > 0)
            out(`Kept the folder's own ${skipped.join(", ")} (not overwritten by the template).`);
          const granted = [...approved.allow, ...approved.modes.map((mode) => `mode ${mode}`)];
          if (granted.length > 0)
            out(
              `Approved what your template's settings grant: ${granted.join(", ")} (\`reson permissions -w ${workspace.name}\` shows them).`,
            );
          out(`Work in it: reson -w ${workspace.name}   or   reson run -w ${workspace.name} "<task>"`);
        }
        return EXIT_OK;
      }
      case "list": {
        need(0, "no arguments");
        const all = await manager.list();
        if (values.json) {
          for (const w of all) out(JSON.stringify(w));
          return EXIT_OK;
        }
        if (all.length === 0) {
          out("No workspaces registered. `reson workspace create <name>` makes one.");
          return EXIT_OK;
        }
        const rows = all.map((w) => [
          w.isDefault ? "*" : " ",
          w.name,
          w.id,
          w.lastUsedAt ? formatAgo(w.lastUsedAt) : "never",
          w.path,
        ]);
        out(table([[" ", "NAME", "ID", "USED", "FOLDER"], ...rows]));
        return EXIT_OK;
      }
      case "show": {
        need(1, "one name or id");
        const workspace = await manager.get(first!);
        out(values.json ? JSON.stringify(workspace) : describe(workspace));
        return EXIT_OK;
      }
      case "default": {
        if (positionals.length === 0) {
          const { workspace, created } = await manager.ensureDefault();
          out(`${created ? "Created the default workspace: " : ""}${describe(workspace)}`);
          return EXIT_OK;
        }
        need(1, "one name or id");
        const workspace = await manager.setDefault(first!);
        out(`${workspace.name} (${workspace.path}) is now the default workspace.`);
        return EXIT_OK;
      }
      case "rename": {
        need(2, "a workspace and its new name");
        const workspace = await manager.rename(first!, second!);
        out(`Renamed to ${workspace.name} (${workspace.id}); its folder stays ${workspace.path}.`);
        return EXIT_OK;
      }
      case "remove": {
        need(1, "one name or id");
        const deleteFiles = values["delete-files"] === true;
        if (values.yes && !deleteFiles)
          throw usage("--yes confirms --delete-files; without it nothing is deleted.");
        if (deleteFiles && values.yes !== true) {
          const workspace = await manager.get(first!);
          if (!process.stdin.isTTY) {
            throw new ResonError("usage_error", `Deleting ${workspace.path} needs a confirmation.`, {
              hint: `Add --yes to confirm (nothing asks here: standard input is not a terminal), or leave out --delete-files to only unregister it.`,
            });
          }
          if (!(await confirmDeletion(workspace))) {
            out("Not confirmed; nothing was removed or deleted.");
            return EXIT_USAGE;
          }
        }
        const { workspace, deleted } = await manager.remove(first!, { deleteFiles });
        out(
          deleted
            ? `Removed workspace ${workspace.name} and deleted ${workspace.path}.`
            : `Removed workspace ${workspace.name}; its files stay in ${workspace.path}.`,
        );
        return EXIT_OK;
      }
      case "use": {
        if (values.clear) {
          need(0, "no name with --clear");
          out(`unset ${WORKSPACE_ENV}`);
          return EXIT_OK;
        }
        need(1, "one name or id");
        const workspace = await manager.get(first!);
        out(`export ${WORKSPACE_ENV}=${shellQuote(workspace.id)}`);
        if (process.stdout.isTTY) {
          process.stderr.write(
            `To work in ${workspace.name} (${workspace.path}) in this terminal, run: eval "$(reson workspace use ${workspace.name})"\n`,
          );
        }
        return EXIT_OK;
      }
      case "settings": {
        if (positionals.length === 0) throw usage("reson workspace settings takes a workspace first.");
        const unset = (values.unset ?? []) as string[];
        const workspace =
          positionals.length > 1 || unset.length > 0
            ? await manager.changeSettings(first!, { set: positionals.slice(1), unset })
            : await manager.get(first!);
        const shown = JSON.stringify(workspace.settings, null, values.json ? undefined : 2);
        out(values.json ? shown : `Settings of ${workspace.name} (for every run in it):\n${shown}`);
        return EXIT_OK;
      }
      case "templates": {
        need(0, "no arguments");
        const templates = await listTemplates(resonHome());
        out(table(templates.map((t) => [t.name, t.source === "user" ? (t.path ?? "") : "built in"])));
        return EXIT_OK;
      }
      default:
        throw usage(
          `unknown workspace command "${sub}".${didYouMean(sub, ["create", "list", "show", "default", "rename", "remove", "use", "settings", "templates"])}`,
        );
    }
  });
}
