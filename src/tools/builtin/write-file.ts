// write_file: create or replace a whole file, atomically.
import { Type } from "typebox";
import { ResonError } from "../../core/errors.js";
import type { FileChange, PreviewContext, ToolDefinition } from "../types.js";
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
  preview: (args, ctx) => previewWrite(args.path, args.content, ctx),
};

/** The file as it is (null when it does not exist yet) beside the content that replaces it. */
async function previewWrite(path: string, content: string, ctx: PreviewContext): Promise<FileChange> {
  try {
    const file = await ctx.workspace.readText(path, { signal: ctx.signal });
    return { path: file.path, before: file.text, after: content };
  } catch (error) {
    if (!(error instanceof ResonError)) throw error;
    if (error.code === "file_not_found") return { path, before: null, after: content };
    // The write replaces it whole whatever it holds; only a text the diff can show is shown.
    if (error.code === "file_binary" || error.code === "file_too_large")
      return { path, before: null, after: content, beforeUnreadable: error.message };
    throw error;
  }
}
