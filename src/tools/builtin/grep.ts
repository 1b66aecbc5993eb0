// grep: search file contents by regular expression, by ripgrep when installed, else in JS.
import { Type } from "typebox";
import type { ToolDefinition } from "../types.js";

const MAX_MATCHES = 500;

export interface GrepToolOptions {
  /** "auto" (default): ripgrep when the workspace has it; "js" forces the built-in search. */
  engine?: "auto" | "ripgrep" | "js";
}

const parameters = Type.Object(
  {
    pattern: Type.String({
      minLength: 1,
      description: 'Regular expression, e.g. "function\\s+load", "TODO|FIXME".',
    }),
    path: Type.Optional(
      Type.String({
        description: 'File or directory to search, relative to the workspace root; default ".".',
      }),
    ),
    glob: Type.Optional(
      Type.String({
        description:
          'Only search files matching this glob, e.g. "*.ts" (any depth), "src/**/*.py"; a leading "!" excludes.',
      }),
    ),
  },
  { additionalProperties: false },
);

export function createGrepTool(options: GrepToolOptions = {}): ToolDefinition<typeof parameters> {
  return {
    name: "grep",
    description:
      "Search the contents of files for a regular expression. Prints one line per matching line as " +
      '"path:line: text" (path relative to the workspace root, line 1-based), sorted by path, at most ' +
      `${MAX_MATCHES} matches. Case-sensitive; start the pattern with (?i) to ignore case. Files ignored by ` +
      ".gitignore (and .ignore/.rgignore), the .git folder and binary files are skipped; hidden files are searched.",
    parameters,
    readOnly: true,
    async execute(args, ctx) {
      const path = args.path ?? ".";
      const found = await ctx.workspace.search(args.pattern, {
        path,
        ...(args.glob === undefined ? {} : { glob: args.glob }),
        maxMatches: MAX_MATCHES,
        engine: options.engine ?? "auto",
        signal: ctx.signal,
      });
      const files = new Set(found.matches.map((match) => match.path)).size;
      const summary = `grep ${args.pattern}: ${found.matches.length}${found.truncated ? "+" : ""} matches in ${files} files`;
      if (found.matches.length === 0) {
        const where = args.glob === undefined ? path : `${path} (files matching ${args.glob})`;
        const note = found.filesTruncated ? " The search stopped early: too many files; narrow path." : "";
        return {
          content: `No matches for ${JSON.stringify(args.pattern)} in ${where}.${note}`,
          longTermMemory: summary,
        };
      }
      const lines = found.matches.map((match) => `${match.path}:${match.line}: ${match.text}`);
      if (found.truncated) {
        lines.push(
          `[Showing the first ${MAX_MATCHES} matches; narrow the pattern, path or glob to see the others.]`,
        );
      }
      if (found.filesTruncated) {
        lines.push("[The search stopped early: too many files under this path; narrow path.]");
      }
      return {
        content: lines.join("\n"),
        longTermMemory: summary,
        truncated: found.truncated || found.filesTruncated,
      };
    },
  };
}
