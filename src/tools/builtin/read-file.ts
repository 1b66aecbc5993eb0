// read_file: a text file, or a range of its lines, with line numbers.
import { Type } from "typebox";
import type { ToolDefinition } from "../types.js";
import { DEFAULT_READ_LIMIT, limitParameter, offsetParameter, pageEnd, pageFooter } from "./line-range.js";
import { numberedLines, splitLines } from "./numbered-lines.js";

const parameters = Type.Object(
  {
    path: Type.String({ description: "File path relative to the workspace root." }),
    offset: offsetParameter,
    limit: limitParameter,
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
  // The file is there to read again by range: an artifact would only copy it.
  saveOverflowAsArtifact: false,
  async execute(args, ctx) {
    const file = await ctx.workspace.readText(args.path, { signal: ctx.signal });
    const lines = splitLines(file.text.startsWith("\uFEFF") ? file.text.slice(1) : file.text);
    const total = lines.length;
    if (total === 0) {
      return { content: `(${file.path} is empty)`, longTermMemory: `read ${file.path} (empty)` };
    }
    const offset = args.offset ?? 1;
    const last = pageEnd(offset, args.limit ?? DEFAULT_READ_LIMIT, total, file.path);
    const footer = pageFooter(offset, last, total, (next) => `Call read_file with offset=${next}`, "file");
    return {
      content: `${numberedLines(lines, offset, last)}\n\n${footer}`,
      longTermMemory: `read ${file.path} lines ${offset}-${last} of ${total}`,
      truncationHint: (cut) =>
        `Call read_file with path=${JSON.stringify(file.path)} and offset=${offset + cut.shownLines} to read more.`,
    };
  },
};
