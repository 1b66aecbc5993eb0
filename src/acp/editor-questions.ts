// ask_human in an editor: where the client offers form elicitation, the question is a form
// with one answer field (its choices as a pick list); declining or cancelling the form
// declines the question. Without it no one can be asked, and the model decides for itself.
import { type AgentContext, type ClientCapabilities, methods } from "@agentclientprotocol/sdk";
import { inertImages } from "../core/markdown-images.js";
import type { AskHuman } from "../tools/index.js";

export function editorQuestions(
  client: AgentContext,
  sessionId: string,
  capabilities: ClientCapabilities | undefined,
  signal: () => AbortSignal | undefined,
): AskHuman | undefined {
  if (!capabilities?.elicitation?.form) return undefined;
  return async (question) => {
    const choices = question.choices && question.choices.length > 0 ? { enum: question.choices } : {};
    const current = signal();
    const response = await client.request(
      methods.client.elicitation.create,
      {
        sessionId,
        toolCallId: question.toolCallId,
        mode: "form",
        message: inertImages(question.question),
        requestedSchema: {
          type: "object",
          properties: { answer: { type: "string", title: "Answer", ...choices } },
          required: ["answer"],
        },
      },
      current ? { cancellationSignal: current, stopWaitingOnCancel: true } : {},
    );
    if (response.action !== "accept") return { answer: "" };
    const answer = (response as { content?: Record<string, unknown> }).content?.answer;
    return { answer: typeof answer === "string" ? answer : "" };
  };
}
