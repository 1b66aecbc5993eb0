// A stored session as the editor's history, for session/load: every committed turn in order,
// the user's tasks as user message chunks (their images as image chunks), the model's text and reasoning as agent message and
// thought chunks, and each tool call with its result (an edit's replaced text as a diff). A call
// whose result was never committed (the process died while it ran) is shown as interrupted; a
// command says where it ran, as it did live.
import type { SessionUpdate, ToolCallContent } from "@agentclientprotocol/sdk";
import { inertImages } from "../core/markdown-images.js";
import type { TurnRecord } from "../store/index.js";
import {
  callContent,
  commandPlace,
  resultText,
  textContent,
  toolKind,
  toolLocations,
  toolTitle,
} from "./tool-call-view.js";

interface Block {
  type?: string;
  text?: string;
  /** An image's base64 bytes and type (a task's images). */
  data?: string;
  mimeType?: string;
  thinking?: string;
  id?: string;
  name?: string;
  arguments?: Record<string, unknown>;
}

interface StoredMessage {
  role?: string;
  content?: unknown;
  toolCallId?: string;
  isError?: boolean;
}

function blocksOf(content: unknown): Block[] {
  if (typeof content === "string") return [{ type: "text", text: content }];
  return Array.isArray(content) ? (content as Block[]) : [];
}

function textOf(content: unknown): string {
  return blocksOf(content)
    .filter((block) => block.type === "text" && typeof block.text === "string")
    .map((block) => block.text)
    .join("");
}

/** What an edit replaced, as a diff of that part of the file (the whole file is not stored). */
function editDiff(name: string, args: Record<string, unknown>, path: string): ToolCallContent[] {
  if (name !== "edit_file" || typeof args.old_string !== "string" || typeof args.new_string !== "string")
    return [];
  return [{ type: "diff", path, oldText: args.old_string, newText: args.new_string }];
}

/**
 * Where each run's commands ran (commandPlace), from the sandbox line its checkpoint keeps:
 * enforced, or off with the reason. Undefined for a run that kept none.
 */
export function placeOfRun(sandbox: unknown): string | undefined {
  if (typeof sandbox !== "string" || sandbox === "") return undefined;
  return commandPlace(sandbox.startsWith("sandbox: enforced") ? undefined : sandbox);
}

/** `placeOf`: where a run's commands ran (placeOfRun), by trace id. */
export function replayUpdates(
  turns: readonly TurnRecord[],
  root: string,
  placeOf: (traceId: string | null) => string | undefined = () => undefined,
): SessionUpdate[] {
  const updates: SessionUpdate[] = [];
  const open = new Map<string, ToolCallContent[]>();
  const closeOpen = () => {
    for (const [toolCallId] of open)
      updates.push({
        sessionUpdate: "tool_call_update",
        toolCallId,
        status: "failed",
        content: [textContent("tool_interrupted: reson stopped before this call finished.")],
      });
    open.clear();
  };
  for (const turn of turns) {
    const message = turn.content as StoredMessage;
    if (message.role !== "toolResult") closeOpen();
    if (message.role === "user") {
      const text = textOf(message.content);
      if (text) updates.push({ sessionUpdate: "user_message_chunk", content: { type: "text", text } });
      for (const block of blocksOf(message.content))
        if (block.type === "image" && block.data && block.mimeType)
          updates.push({
            sessionUpdate: "user_message_chunk",
            content: { type: "image", data: block.data, mimeType: block.mimeType },
          });
      continue;
    }
    if (message.role === "toolResult" && message.toolCallId) {
      const diff = open.get(message.toolCallId) ?? [];
      open.delete(message.toolCallId);
      const text = resultText(textOf(message.content));
      updates.push({
        sessionUpdate: "tool_call_update",
        toolCallId: message.toolCallId,
        status: message.isError ? "failed" : "completed",
        content: [...(message.isError ? [] : diff), ...(text ? [textContent(text)] : [])],
      });
      continue;
    }
    if (message.role !== "assistant") continue;
    for (const block of blocksOf(message.content)) {
      if (block.type === "text" && block.text)
        updates.push({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: block.text } });
      else if (block.type === "thinking" && block.thinking)
        updates.push({
          sessionUpdate: "agent_thought_chunk",
          // Kept as the provider signed it: what the editor renders of it loads nothing.
          content: { type: "text", text: inertImages(block.thinking) },
        });
      else if (block.type === "toolCall" && block.id && block.name) {
        const args = block.arguments ?? {};
        const locations = toolLocations(block.name, args, root);
        open.set(block.id, locations[0] ? editDiff(block.name, args, locations[0].path) : []);
        updates.push({
          sessionUpdate: "tool_call",
          toolCallId: block.id,
          title: toolTitle(block.name, args),
          kind: toolKind(block.name),
          status: "in_progress",
          content: callContent(block.name, args, placeOf(turn.traceId)),
          locations,
          rawInput: args,
        });
      }
    }
  }
  closeOpen();
  return updates;
}
