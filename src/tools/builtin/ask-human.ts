// ask_human: a blocking question to the user. The host gives the channel (the terminal, a
// line on stdin); without one, or when the user gives no answer, the model is told to decide
// for itself and say what it assumed. Questions are asked one at a time, even when the model
// asks several in one step.
import { Type } from "typebox";
import type { AskHuman, ToolDefinition, ToolOutput } from "../types.js";

const parameters = Type.Object(
  {
    question: Type.String({
      minLength: 1,
      description: "The question, complete enough to answer without seeing your work.",
    }),
    choices: Type.Optional(
      Type.Array(Type.String({ minLength: 1 }), {
        maxItems: 10,
        description:
          "Suggested answers, when there are a few clear options; the user may still write their own.",
      }),
    ),
  },
  { additionalProperties: false },
);

export const NO_HUMAN_TEXT =
  "No human is available to answer; decide yourself, state your assumption, and continue.";
export const DECLINED_TEXT =
  "The user declined to answer; decide yourself, state your assumption, and continue.";

export function createAskHumanTool(): ToolDefinition<typeof parameters> {
  // One question at a time: a second call in the same step waits for the first answer.
  let queue: Promise<unknown> = Promise.resolve();
  return {
    name: "ask_human",
    description:
      "Ask the user a question and wait for the answer. Use it only when you cannot go on without a " +
      "decision or a fact only the user has (which of two designs, a missing credential's name, an " +
      "ambiguous requirement); otherwise decide yourself. If no one answers, you are told so: then " +
      "choose, state your assumption, and continue.",
    parameters,
    readOnly: true,
    async execute(args, ctx) {
      const ask = ctx.askHuman;
      if (!ask) return { content: NO_HUMAN_TEXT };
      const choices = args.choices && args.choices.length > 0 ? args.choices : undefined;
      const asked = queue.then(() =>
        ask({ question: args.question, toolCallId: ctx.toolCallId, ...(choices ? { choices } : {}) }),
      );
      queue = asked.catch(() => {});
      return answerOutput(await asked);
    },
  };
}

function answerOutput(reply: Awaited<ReturnType<AskHuman>>): ToolOutput {
  if (reply === undefined) return { content: NO_HUMAN_TEXT };
  const answer = reply.answer.trim();
  if (!answer) return { content: DECLINED_TEXT };
  return { content: `The user answered: ${answer}` };
}
