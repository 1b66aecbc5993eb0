// list_files: the entries of one directory, for finding one's way around the workspace.
import { Type } from "typebox";
import type { DirEntry } from "../../workspace/index.js";
import type { ToolDefinition } from "../types.js";

const MAX_ENTRIES = 1000;

const parameters = Type.Object(
  {
    path: Type.Optional(
      Type.String({ description: 'Directory relative to the workspace root; default "." (the root).' }),
    ),
  },
  { additionalProperties: false },
);

function entryLine(entry: DirEntry): string {
  if (entry.kind === "directory" || entry.linkTo === "directory") return `${entry.name}/`;
  if (entry.linkTo === "outside") return `${entry.name} -> (link to outside the workspace, unusable)`;
  if (entry.linkTo === "broken") return `${entry.name} -> (broken link)`;
  return entry.name;
}

export const listFilesTool: ToolDefinition<typeof parameters> = {
  name: "list_files",
  description:
    "List the entries of one directory in the workspace (not recursive), sorted by name, one per line. " +
    'Directories end with "/". Hidden entries are included. Use glob to find files at any depth ' +
    "and grep to search their contents.",
  parameters,
  readOnly: true,
  async execute(args, ctx) {
    const path = args.path ?? ".";
    const entries = await ctx.workspace.list(path, { signal: ctx.signal });
    const shown = entries.slice(0, MAX_ENTRIES).map(entryLine);
    const more = entries.length - shown.length;
    const lines = shown.length > 0 ? shown : ["(empty directory)"];
    if (more > 0) lines.push(`[... and ${more} more entries; use glob with a pattern to narrow down.]`);
    return {
      content: lines.join("\n"),
      longTermMemory: `listed ${path} (${entries.length} entries)`,
      truncated: more > 0,
    };
  },
};
