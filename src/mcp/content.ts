// MCP content blocks as the text the model reads: text as it is, structured content as JSON
// when there is no text, and images, audio, blobs and resource links by reference (type,
// size, URI), never their bytes, so one screenshot cannot eat the context.
import type { McpCallResult, McpContent, McpResourceContents } from "./connection.js";

function sizeOf(base64: string): string {
  const bytes = Math.floor((base64.length * 3) / 4);
  return bytes < 1024 ? `${bytes} bytes` : `${(bytes / 1024).toFixed(1)} kB`;
}

export function resourceText(resource: McpResourceContents): string {
  if (resource.text !== undefined) return resource.text;
  const type = resource.mimeType ?? "binary";
  return `[${type} resource ${resource.uri}, ${sizeOf(resource.blob ?? "")}: not shown]`;
}

export function blockText(block: McpContent): string {
  switch (block.type) {
    case "text":
      return block.text;
    case "image":
    case "audio":
      return `[${block.type} ${block.mimeType}, ${sizeOf(block.data)}: not shown]`;
    case "resource_link": {
      const about = [block.name, block.mimeType].filter(Boolean).join(", ");
      return `[resource ${block.uri}${about ? ` (${about})` : ""}: read it with read_resource]`;
    }
    case "resource":
      return `[resource ${block.resource.uri}]\n${resourceText(block.resource)}`;
    default:
      return `[${(block as { type?: string }).type ?? "unknown"} content: not shown]`;
  }
}

export function resultText(result: McpCallResult): string {
  const parts = result.content.map(blockText);
  if (parts.length === 0 && result.structuredContent !== undefined)
    return JSON.stringify(result.structuredContent, null, 2);
  return parts.join("\n");
}
