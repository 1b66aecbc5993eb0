// How the command line answers ask_human. The question itself is shown by the renderers
// (a human_question event); here an answer is read: in the terminal from the prompt, and for
// `reson run --interactive-stdin` one line of standard input per question, plain text or
// {"toolCallId": "…", "answer": "…"}. A choice's number picks that choice; an empty line
// declines; the end of input means no one is there to answer.
import type { AskHuman, HumanQuestion } from "../tools/index.js";

/** The question as the terminal shows it: the text, then the choices numbered from 1. */
export function questionLines(question: { question: string; choices?: readonly string[] }): string {
  const lines = [`? ${question.question}`];
  question.choices?.forEach((choice, i) => {
    lines.push(`  ${i + 1}. ${choice}`);
  });
  return `${lines.join("\n")}\n`;
}

/** The prompt under a question. */
export function answerPrompt(question: { choices?: readonly string[] }): string {
  return question.choices && question.choices.length > 0
    ? "answer (a number or your own words; empty to skip): "
    : "answer (empty to skip): ";
}

/** A typed answer: the number of a choice stands for that choice; anything else is the answer. */
export function answerFromLine(line: string, choices?: readonly string[]): string {
  const text = line.trim();
  if (choices && /^\d+$/.test(text)) {
    const choice = choices[Number(text) - 1];
    if (choice !== undefined) return choice;
  }
  return text;
}

export type StdinAnswer = { answer: string } | { otherToolCallId: string };

/**
 * One line of standard input as the answer to `question`: a JSON object with a string
 * `answer` (and, if it has one, the question's `toolCallId`), or else the line as typed.
 */
export function parseAnswerLine(line: string, question: HumanQuestion): StdinAnswer {
  const text = line.trim();
  if (text.startsWith("{")) {
    const value = parseJson(text);
    if (isRecord(value) && typeof value.answer === "string") {
      const id = value.toolCallId;
      if (typeof id === "string" && id !== question.toolCallId) return { otherToolCallId: id };
      return { answer: value.answer };
    }
  }
  return { answer: answerFromLine(text, question.choices) };
}

export interface StdinAnswers {
  ask: AskHuman;
  close(): void;
}

/**
 * ask_human over a stream of lines (standard input). `prompt` is written to `err` before each
 * read (human mode); an answer naming another question's toolCallId is skipped with a warning.
 */
export function stdinAnswers(options: {
  input: NodeJS.ReadableStream;
  err: NodeJS.WritableStream;
  prompt?: boolean;
}): StdinAnswers {
  // node:readline only for runs that may ask (a headless run without --interactive-stdin does not).
  const rl = process
    .getBuiltinModule("node:readline")
    .createInterface({ input: options.input, terminal: false });
  const lines = rl[Symbol.asyncIterator]();
  let ended = false;
  const nextLine = async (): Promise<string | undefined> => {
    if (ended) return undefined;
    const next = await lines.next();
    if (next.done) ended = true;
    return next.done ? undefined : next.value;
  };
  return {
    async ask(question) {
      for (;;) {
        if (options.prompt) options.err.write(answerPrompt(question));
        const line = await nextLine();
        if (line === undefined) return undefined;
        const parsed = parseAnswerLine(line, question);
        if ("answer" in parsed) return parsed;
        options.err.write(
          `warning: an answer for ${parsed.otherToolCallId} was skipped; waiting for the answer to ${question.toolCallId}\n`,
        );
      }
    },
    close: () => rl.close(),
  };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
