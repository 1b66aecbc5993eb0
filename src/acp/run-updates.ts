// A run's events as the editor's session/update stream: the model's text and reasoning as
// message and thought chunks, each tool call with its kind, title, files and status (a file
// change as a diff, from the preview taken right before it ran), the goal tree as the plan,
// and the context use the terminal's status line shows.
import type { ToolCallContent } from "@agentclientprotocol/sdk";
import type { ResonEvent } from "../core/events.js";
import type { FileChange } from "../tools/index.js";
import { PlanEntries } from "./plan-entries.js";
import {
  callContent,
  diffContent,
  resultText,
  textContent,
  toolKind,
  toolLocations,
  toolTitle,
} from "./tool-call-view.js";
import type { UpdateSender } from "./update-sender.js";

export class RunUpdates {
  /** The stop reason of the run's last step (stop, length, toolUse). */
  lastStepStop: string | undefined;
  readonly #plan = new PlanEntries();
  readonly #diffs = new Map<string, ToolCallContent>();
  #planPending = false;

  constructor(
    private readonly updates: UpdateSender,
    private readonly root: string,
    private readonly warn: (message: string) => void,
    /** Where the session's commands run (commandPlace), said with each. */
    private readonly commandPlace: string,
  ) {}

  /** A call the gate let through is about to run; `change` is what it will change, when it changes a file. */
  toolStarting(toolCallId: string, change: FileChange | undefined): void {
    const diff = change ? diffContent(change, this.root) : undefined;
    if (diff) this.#diffs.set(toolCallId, diff);
    this.updates.send({
      sessionUpdate: "tool_call_update",
      toolCallId,
      status: "in_progress",
      ...(diff ? { content: [diff] } : {}),
    });
  }

  #sendPlan(): void {
    this.#planPending = false;
    this.updates.send({ sessionUpdate: "plan", entries: this.#plan.entries() });
  }

  readonly listener = (event: ResonEvent): void => {
    switch (event.type) {
      case "text_delta":
        this.updates.send({
          sessionUpdate: "agent_message_chunk",
          content: { type: "text", text: event.delta },
        });
        return;
      case "thinking_delta":
        this.updates.send({
          sessionUpdate: "agent_thought_chunk",
          content: { type: "text", text: event.delta },
        });
        return;
      case "tool_call":
        this.updates.send({
          sessionUpdate: "tool_call",
          toolCallId: event.toolCallId,
          title: toolTitle(event.name, event.arguments),
          kind: toolKind(event.name),
          status: "pending",
          content: callContent(event.name, event.arguments, this.commandPlace),
          locations: toolLocations(event.name, event.arguments, this.root),
          rawInput: event.arguments,
        });
        return;
      case "tool_result": {
        const diff = this.#diffs.get(event.toolCallId);
        this.#diffs.delete(event.toolCallId);
        const text = resultText(event.content, event.error);
        this.updates.send({
          sessionUpdate: "tool_call_update",
          toolCallId: event.toolCallId,
          status: event.ok ? "completed" : "failed",
          content: [...(diff && event.ok ? [diff] : []), ...(text ? [textContent(text)] : [])],
        });
        return;
      }
      case "goal_changed":
        // One goal call's changes (added, then focused) come together: one plan for them all.
        this.#plan.apply(event);
        if (!this.#planPending) queueMicrotask(() => this.#sendPlan());
        this.#planPending = true;
        return;
      case "context_usage":
        this.updates.send({ sessionUpdate: "usage_update", used: event.estTokens, size: event.windowTokens });
        return;
      case "step_end":
        this.lastStepStop = event.stopReason;
        return;
      case "warning":
        this.warn(event.message);
        return;
    }
  };
}
