// write_file: create or replace a whole file, atomically.
import { Type } from "typebox";
import type { ToolDefinition } from "../types.js";
import { splitLines } from "./numbered-lines.js";

const parameters = Type.Object(
  {
    path: Type.String({ description: "File path relative to the workspace root." }),
    content: Type.String({ description: "The complete new content of the file." }),
  },
  { additionalProperties: false },
);

export const writeFileTool: ToolDefinition<typeof parameters> = {
  name: "write_file",
  description:
    "Create a file, or replace an existing file's whole content, in the workspace. Missing parent " +
    "directories are created. The write is atomic: the file is never left half-written. To change part " +
    "of an existing file, prefer edit_file.",
  parameters,
  readOnly: false,
  async execute(args, ctx) {
    const written = await ctx.workspace.writeText(args.path, args.content, { signal: ctx.signal });
    const lines = splitLines(args.content).length;
    const what = `${lines} line${lines === 1 ? "" : "s"}`;
    return {
      content: `${written.created ? "Created" : "Overwrote"} ${written.path}: ${what} (${written.bytes} bytes).`,
      longTermMemory: `wrote ${written.path} (${what})`,
    };
  },
};
