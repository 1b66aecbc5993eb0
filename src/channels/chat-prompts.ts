// A run's approvals and questions as chat messages with buttons, and a press back as the answer
// the HTTP API would have taken: "Allow once", "Allow for this session", "Deny" for a
// permission; one button per choice for a question with choices (a free question is answered
// by the next message in the chat). The button data names the prompt and the choice only.

import type { RunPromptRecord } from "../store/index.js";
import type { ApprovalAnswer } from "../worker/index.js";
import type { ChatButton } from "./types.js";

interface PermissionPayload {
  tool?: string;
  arguments?: Record<string, unknown>;
  reason?: string;
  rule?: string;
  session?: unknown;
  /** Set when the trust rules hold the call back: only an owner may allow it. */
  untrustedHold?: string;
}

interface QuestionPayload {
  question?: string;
  choices?: string[];
}

const DECISIONS: Record<string, ApprovalAnswer["decision"]> = {
  a: "allow_once",
  s: "allow_session",
  d: "deny",
};
const DECISION_WORDS: Record<ApprovalAnswer["decision"], string> = {
  allow_once: "allowed once",
  allow_session: "allowed for this session",
  deny: "denied",
};

export function promptMessage(prompt: RunPromptRecord): { text: string; buttons: ChatButton[] } {
  if (prompt.kind === "permission") {
    const payload = prompt.payload as PermissionPayload;
    const args = JSON.stringify(payload.arguments ?? {});
    const shown = args.length > 600 ? `${args.slice(0, 600)}…` : args;
    const ownerOnly = payload.untrustedHold ? "\nOnly an owner can allow this." : "";
    const text =
      `The agent asks to run ${payload.tool ?? "a tool"} ${shown}\n${payload.reason ?? ""}${payload.rule ? ` (${payload.rule})` : ""}${ownerOnly}`.trim();
    const buttons: ChatButton[] = [{ label: "Allow once", data: `${prompt.id}:a` }];
    if (payload.session !== undefined)
      buttons.push({ label: "Allow for this session", data: `${prompt.id}:s` });
    buttons.push({ label: "Deny", data: `${prompt.id}:d` });
    return { text, buttons };
  }
  const payload = prompt.payload as QuestionPayload;
  const choices = payload.choices ?? [];
  const text =
    choices.length > 0
      ? `The agent asks: ${payload.question ?? ""}`
      : `The agent asks: ${payload.question ?? ""}\n(Answer with your next message here.)`;
  return {
    text,
    buttons: choices
      .slice(0, 20)
      .map((choice, i) => ({ label: choice.slice(0, 60), data: `${prompt.id}:${i}` })),
  };
}

export type PressAnswer =
  | { kind: "permission"; promptId: string; answer: ApprovalAnswer; words: string }
  | { kind: "question"; promptId: string; answer: string; words: string };

/** What a press means for `prompt`, or undefined for data that does not fit it. */
export function pressAnswer(prompt: RunPromptRecord, choice: string): PressAnswer | undefined {
  if (prompt.kind === "permission") {
    const decision = DECISIONS[choice];
    if (!decision) return undefined;
    return { kind: "permission", promptId: prompt.id, answer: { decision }, words: DECISION_WORDS[decision] };
  }
  const choices = (prompt.payload as QuestionPayload).choices ?? [];
  const index = Number(choice);
  const answer = Number.isInteger(index) ? choices[index] : undefined;
  if (answer === undefined) return undefined;
  return { kind: "question", promptId: prompt.id, answer, words: `answered "${answer}"` };
}

/** "<prompt id>:<choice>" split; undefined for anything else. */
export function parsePressData(data: string): { promptId: string; choice: string } | undefined {
  const match = /^([0-9A-Za-z]{10,40}):([a-z]|\d{1,2})$/.exec(data);
  return match ? { promptId: match[1]!, choice: match[2]! } : undefined;
}
