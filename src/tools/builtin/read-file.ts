// read_file: a text file, or a range of its lines, with line numbers.
import { Type } from "typebox";
import { ResonError } from "../../core/errors.js";
import type { ToolDefinition } from "../types.js";
import { numberedLines, splitLines } from "./numbered-lines.js";

export const DEFAULT_READ_LIMIT = 2000;

const parameters = Type.Object(
  {
    path: Type.String({ description: "File path relative to the workspace root." }),
    offset: Type.Optional(
      Type.Integer({ minimum: 1, description: "First line to return, 1-based; default 1." }),
    ),
    limit: Type.Optional(
      Type.Integer({
        minimum: 1,
        description: `How many lines to return at most; default ${DEFAULT_READ_LIMIT}.`,
      }),
    ),
  },
  { additionalProperties: false },
);

export const readFileTool: ToolDefinition<typeof parameters> = {
  name: "read_file",
  description:
    "Read a text file from the workspace. Each line is shown as its line number (right-aligned), a tab, " +
    "then the line's text; the number and tab are not part of the file, so leave them out when you copy " +
    `text into edit_file. Returns up to ${DEFAULT_READ_LIMIT} lines from offset (1-based); the last line ` +
    "says the total line count and, when there is more, the offset to continue from. Very long lines are " +
    "cut. Binary files are refused.",
  parameters,
  readOnly: true,
  async execute(args, ctx) {
    const file = await ctx.workspace.readText(args.path, { signal: ctx.signal });
    const lines = splitLines(file.text.startsWith("\uFEFF") ? file.text.slice(1) : file.text);
    const total = lines.length;
    if (total === 0) {
      return { content: `(${file.path} is empty)`, longTermMemory: `read ${file.path} (empty)` };
    }
    const offset = args.offset ?? 1;
    if (offset > total) {
      throw new ResonError(
        "tool_invalid_arguments",
        `offset ${offset} is past the end of ${file.path}, which has ${total} line${total === 1 ? "" : "s"}.`,
        { hint: `Use an offset from 1 to ${total}.`, details: { field: "offset" } },
      );
    }
    const last = Math.min(total, offset + (args.limit ?? DEFAULT_READ_LIMIT) - 1);
    const footer =
      last < total
        ? `[Lines ${offset}-${last} of ${total}. Call read_file with offset=${last + 1} to read more.]`
        : `[Lines ${offset}-${last} of ${total}; end of file.]`;
    return {
      content: `${numberedLines(lines, offset, last)}\n\n${footer}`,
      longTermMemory: `read ${file.path} lines ${offset}-${last} of ${total}`,
      truncationHint: (cut) =>
        `Call read_file with path=${JSON.stringify(file.path)} and offset=${offset + cut.shownLines} to read more.`,
    };
  },
};
