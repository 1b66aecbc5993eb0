// A model for tests that stop a process while a run is inside a command: its first step runs a
// command that notes it started (started.txt), waits for the file `go`, then notes that it ran
// (count.txt); once any tool result is in, it answers. "Inside a command" is a state the test
// waits for (the file), not a timing.
import type { FakeReply, RecordedRequest } from "./fake-model-server.js";

export const WAITING_COMMAND =
  "echo started >> started.txt; while [ ! -f go ]; do sleep 0.05; done; echo ran >> count.txt";

interface ChatMessage {
  role: string;
  content?: unknown;
}

function messagesOf(request: RecordedRequest): ChatMessage[] {
  return (request.body as { messages?: ChatMessage[] } | undefined)?.messages ?? [];
}

export function waitingCommand(request: RecordedRequest): FakeReply {
  if (messagesOf(request).some((m) => m.role === "tool")) return { text: "finished" };
  return {
    toolCalls: [{ id: "call_slow", name: "execute_command", arguments: { command: WAITING_COMMAND } }],
  };
}

/** What the model was told of each tool call, request by request (Chat Completions `tool` messages). */
export function toolMessagesOf(request: RecordedRequest): string[] {
  return messagesOf(request)
    .filter((m) => m.role === "tool")
    .map((m) => (typeof m.content === "string" ? m.content : JSON.stringify(m.content)));
}
