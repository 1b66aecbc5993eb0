// An editor's prompt as reson's task text. Text is taken as it is; a link to a resource (a file
// the user mentioned) becomes its name in brackets, as a workspace path where it is one, so the
// model reads it with its tools; an embedded resource (the file's text the editor attached) is
// included whole, marked with its path. Images and audio are not taken: reson's tasks are text
// (initialize says so), and one sent anyway is a parameter error, not a silent drop.
import { isAbsolute, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";
import type { ContentBlock } from "@agentclientprotocol/sdk";
import { ResonError } from "../core/errors.js";

/** A resource's URI as the user would name it: a workspace path, else the URI itself. */
function shownUri(uri: string, root: string): string {
  if (!uri.startsWith("file:")) return uri;
  let path: string;
  try {
    path = fileURLToPath(uri);
  } catch {
    return uri;
  }
  const inside = relative(root, path);
  if (inside && !inside.startsWith("..") && !isAbsolute(inside)) return inside.split(sep).join("/");
  return path;
}

function blockText(block: ContentBlock, root: string): string {
  switch (block.type) {
    case "text":
      return block.text;
    case "resource_link":
      return `[${block.title ?? block.name}: ${shownUri(block.uri, root)}]`;
    case "resource": {
      const where = shownUri(block.resource.uri, root);
      if ("text" in block.resource)
        return `\n<attached path="${where}">\n${block.resource.text}\n</attached>\n`;
      const size = Math.floor((block.resource.blob.length * 3) / 4);
      return `\n[attached binary ${where} (${block.resource.mimeType ?? "unknown type"}, about ${size} bytes), not shown]\n`;
    }
    default:
      throw new ResonError("usage_error", `reson takes text prompts; this one has ${block.type} content.`, {
        hint: "Send text, file links or file contents (initialize's promptCapabilities say which).",
      });
  }
}

export function promptTask(blocks: readonly ContentBlock[], root: string): string {
  const task = blocks
    .map((block) => blockText(block, root))
    .join("")
    .trim();
  if (!task) throw new ResonError("usage_error", "The prompt is empty.", { hint: "Send the task as text." });
  return task;
}
