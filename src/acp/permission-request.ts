// reson's permission question as the editor's session/request_permission: the call (a file
// change as its diff, a command as its text), and options that say exactly what reson will do
// with each answer: the rules an "always" answer adds and the file it adds them to, the same
// narrow rules the terminal's [s] and [p] add. A call that is asked every time (a protected
// path, an ask rule) offers only allow once and reject.
import type {
  PermissionOption,
  RequestPermissionRequest,
  RequestPermissionResponse,
} from "@agentclientprotocol/sdk";
import { printableLines } from "../core/printable-text.js";
import type { PermissionAnswer, PermissionPrompt } from "../permissions/index.js";
import {
  callContent,
  diffContent,
  textContent,
  toolKind,
  toolLocations,
  toolTitle,
} from "./tool-call-view.js";

/** The project file "always" answers write to, as the terminal's [p] does. */
export const PROJECT_SETTINGS = ".reson/settings.local.json";

type OptionId = "allow_once" | "allow_session" | "allow_project" | "reject_once" | "reject_project";

function options(prompt: PermissionPrompt): PermissionOption[] {
  const once: PermissionOption[] = [{ optionId: "allow_once", name: "Allow once", kind: "allow_once" }];
  const reject: PermissionOption = { optionId: "reject_once", name: "Reject", kind: "reject_once" };
  const rules = prompt.suggestedRules;
  if (!rules || !prompt.session) return [...once, reject];
  const listed = rules.join(", ");
  return [
    ...once,
    { optionId: "allow_session", name: `Allow ${prompt.session.covers}`, kind: "allow_always" },
    {
      optionId: "allow_project",
      name: `Always allow in this project: adds ${listed} to ${PROJECT_SETTINGS}`,
      kind: "allow_always",
    },
    reject,
    {
      optionId: "reject_project",
      name: `Always reject in this project: adds ${listed} to the deny rules of ${PROJECT_SETTINGS}`,
      kind: "reject_always",
    },
  ];
}

/** Why reson asks, and each part that asks (a command of several parts). */
function reasons(prompt: PermissionPrompt): string {
  const parts = prompt.decision.parts?.filter((part) => part.behavior !== "allow") ?? [];
  if (parts.length === 0) return prompt.decision.reason;
  return parts.map((part) => `${part.part}: ${part.reason}`).join("\n");
}

export function permissionRequest(
  prompt: PermissionPrompt,
  sessionId: string,
  root: string,
  commandPlace?: string,
): RequestPermissionRequest {
  const change = prompt.change;
  const content = [
    ...(change?.ok
      ? [diffContent(change.change, root)]
      : callContent(prompt.tool, prompt.arguments, commandPlace)),
    // The reasons quote the command's parts: written out as the command is.
    textContent(
      printableLines(
        change && !change.ok
          ? `${reasons(prompt)}\nAs it stands this call would fail: ${change.message}`
          : reasons(prompt),
      ),
    ),
  ];
  return {
    sessionId,
    toolCall: {
      toolCallId: prompt.toolCallId,
      title: toolTitle(prompt.tool, prompt.arguments),
      kind: toolKind(prompt.tool),
      status: "pending",
      content,
      locations: toolLocations(prompt.tool, prompt.arguments, root),
      rawInput: prompt.arguments,
    },
    options: options(prompt),
  };
}

const ANSWERS: Record<OptionId, PermissionAnswer> = {
  allow_once: { kind: "allow_once" },
  allow_session: { kind: "allow_session" },
  allow_project: { kind: "allow_project" },
  reject_once: { kind: "deny" },
  reject_project: { kind: "deny_project" },
};

/** The editor's answer; a cancelled request (the turn was cancelled) or an unknown option denies. */
export function permissionAnswer(response: RequestPermissionResponse): PermissionAnswer {
  const outcome = response.outcome;
  if (outcome.outcome !== "selected") return { kind: "deny", note: "The user cancelled the turn." };
  return Object.hasOwn(ANSWERS, outcome.optionId)
    ? ANSWERS[outcome.optionId as OptionId]
    : { kind: "deny", note: `The editor answered with an unknown option (${outcome.optionId}).` };
}
