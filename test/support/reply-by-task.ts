// Replies of the fake model server for runs that go on at the same time (a run and its
// sub-agents): the script order is ambiguous there, so each request is answered by the task
// of the run asking (its first user message) and how many model calls that run made before.
import type { FakeReply, RecordedRequest } from "./fake-model-server.js";

interface ChatBody {
  messages?: Array<{ role: string; content: unknown }>;
}

/** The run's task: the first user message of a Chat Completions request. */
export function taskOf(request: RecordedRequest): string {
  const messages = (request.body as ChatBody | undefined)?.messages ?? [];
  return String(messages.find((m) => m.role === "user")?.content ?? "");
}

/**
 * For `startFakeModelServer({ respond })`: the replies of the first key the task starts with,
 * one per model call of that run (the last one repeats); undefined (the script) for other tasks.
 */
export function replyByTask(
  script: Record<string, FakeReply[]> | (() => Record<string, FakeReply[]>),
): (request: RecordedRequest) => FakeReply | undefined {
  return (request) => {
    const replies = typeof script === "function" ? script() : script;
    const task = taskOf(request);
    const key = Object.keys(replies).find((prefix) => task.startsWith(prefix));
    if (key === undefined) return undefined;
    const messages = (request.body as ChatBody).messages ?? [];
    const calls = messages.filter((m) => m.role === "assistant").length;
    const list = replies[key]!;
    return list[Math.min(calls, list.length - 1)];
  };
}
