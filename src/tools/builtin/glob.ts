// glob: find files by name pattern, at any depth, respecting ignore files.
import { Type } from "typebox";
import type { ToolDefinition } from "../types.js";

const MAX_RESULTS = 1000;

const parameters = Type.Object(
  {
    pattern: Type.String({
      minLength: 1,
      description: 'Glob pattern relative to path, e.g. "**/*.ts", "src/**/*.test.ts", "*.{json,yaml}".',
    }),
    path: Type.Optional(
      Type.String({ description: 'Directory to search in, relative to the workspace root; default ".".' }),
    ),
  },
  { additionalProperties: false },
);

export const globTool: ToolDefinition<typeof parameters> = {
  name: "glob",
  description:
    'Find files whose path (relative to "path", default the workspace root) matches a glob pattern. ' +
    '"*" matches within one directory level, "**" any number of levels: "*.ts" finds only top-level files, ' +
    `"**/*.ts" finds them at every depth. Files ignored by .gitignore (and .ignore/.rgignore) and the .git ` +
    `folder are skipped; hidden files are included. Returns paths relative to the workspace root, sorted by ` +
    `path, at most ${MAX_RESULTS}.`,
  parameters,
  readOnly: true,
  async execute(args, ctx) {
    const path = args.path ?? ".";
    const found = await ctx.workspace.glob(args.pattern, { path, signal: ctx.signal });
    const total = found.paths.length;
    if (total === 0) {
      const note = found.truncated ? " (the search stopped early: too many files; narrow path)" : "";
      return {
        content: `No files match ${JSON.stringify(args.pattern)} under ${path}${note}.`,
        longTermMemory: `glob ${args.pattern}: no files`,
      };
    }
    const lines = found.paths.slice(0, MAX_RESULTS);
    if (total > MAX_RESULTS) {
      lines.push(`[Showing ${MAX_RESULTS} of ${total} files; narrow the pattern or path.]`);
    }
    if (found.truncated) {
      lines.push("[The search stopped early: too many files under this path; results may be incomplete.]");
    }
    return {
      content: lines.join("\n"),
      longTermMemory: `glob ${args.pattern}: ${total} file${total === 1 ? "" : "s"}`,
      truncated: total > MAX_RESULTS || found.truncated,
    };
  },
};
