// An editor's prompt as reson's task text. Text is taken as it is; a link to a resource (a file
// the user mentioned) becomes its name in brackets, as a workspace path where it is one, so the
// model reads it with its tools; an embedded resource (the file's text the editor attached) is
// included whole, marked with its path. Images (PNG, JPEG, GIF, WebP up to 5 MB) go with the
// task to the model, checked here; audio is not taken (initialize says so), and audio sent
// anyway is a parameter error, not a silent drop.
import { isAbsolute, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";
import type { ContentBlock } from "@agentclientprotocol/sdk";
import { taskImage } from "../agent/index.js";
import { ResonError } from "../core/errors.js";
import type { ImageContent } from "../providers/index.js";

/** A prompt as reson's task: its text, and the images that come with it. */
export interface PromptTask {
  text: string;
  images: ImageContent[];
}

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

function blockText(block: Exclude<ContentBlock, { type: "image" }>, root: string): string {
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
      throw new ResonError(
        "usage_error",
        `reson takes text and images; this prompt has ${block.type} content.`,
        {
          hint: "Send text, images, file links or file contents (initialize's promptCapabilities say which).",
        },
      );
  }
}

export function promptTask(blocks: readonly ContentBlock[], root: string): PromptTask {
  const images: ImageContent[] = [];
  const texts: string[] = [];
  for (const block of blocks) {
    if (block.type === "image") images.push(taskImage(block.data, block.mimeType));
    else texts.push(blockText(block, root));
  }
  const text = texts.join("").trim();
  if (!text && images.length === 0)
    throw new ResonError("usage_error", "The prompt is empty.", { hint: "Send the task as text." });
  return { text, images };
}
