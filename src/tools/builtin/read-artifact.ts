// read_artifact: pages through an output that was too large for the context. The registry
// keeps such an output whole as an artifact and names it in the truncation marker; this
// shows its lines numbered as read_file does.
import { Type } from "typebox";
import { ResonError } from "../../core/errors.js";
import type { ToolDefinition } from "../types.js";
import { DEFAULT_READ_LIMIT, limitParameter, offsetParameter, pageEnd, pageFooter } from "./line-range.js";
import { numberedLine } from "./numbered-lines.js";

const parameters = Type.Object(
  {
    id: Type.String({ description: "The artifact id named in a truncated output." }),
    offset: offsetParameter,
    limit: limitParameter,
  },
  { additionalProperties: false },
);

export const readArtifactTool: ToolDefinition<typeof parameters> = {
  name: "read_artifact",
  description:
    "Read a saved tool output that was too large to show whole: a truncated output names its artifact id and " +
    "the offset to continue from. Each line is shown as its line number, a tab, then the line's text. Returns " +
    `up to ${DEFAULT_READ_LIMIT} lines from offset (1-based); the last line says the total line count and, when ` +
    "there is more, the offset to continue from.",
  parameters,
  readOnly: true,
  // Its pages can be asked for again by range; saving them as artifacts would only nest.
  saveOverflowAsArtifact: false,
  async execute(args, ctx) {
    if (!ctx.readArtifact) {
      throw new ResonError("tool_failed", "Artifacts are not available in this run.", {
        hint: "Run the command again with a narrower output instead.",
      });
    }
    const id = args.id.trim();
    const offset = args.offset ?? 1;
    const limit = args.limit ?? DEFAULT_READ_LIMIT;
    const page = await ctx.readArtifact(id, offset, limit);
    if (!page) {
      throw new ResonError("not_found", `There is no artifact ${JSON.stringify(args.id)}.`, {
        hint: "Use the id exactly as a truncated output named it.",
        details: { id: args.id },
      });
    }
    const total = page.totalLines;
    if (total === 0)
      return { content: `(artifact ${id} is empty)`, longTermMemory: `read artifact ${id} (empty)` };
    const last = pageEnd(offset, limit, total, `artifact ${id}`);
    // The page is exactly lines offset..last joined by "\n" (so an empty last line survives).
    const lines = page.text.split("\n").map((line) => (line.endsWith("\r") ? line.slice(0, -1) : line));
    const readOn = (next: number) => `Call read_artifact with id=${JSON.stringify(id)} and offset=${next}`;
    const footer = pageFooter(offset, last, total, readOn, "artifact");
    return {
      content: `${lines.map((line, i) => numberedLine(offset + i, line)).join("\n")}\n\n${footer}`,
      longTermMemory: `read artifact ${id} lines ${offset}-${last} of ${total}`,
      truncationHint: (cut) => `${readOn(offset + cut.shownLines)} to read more.`,
    };
  },
};
