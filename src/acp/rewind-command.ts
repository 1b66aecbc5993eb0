// The editor's /rewind, as the terminal's: `/rewind` lists the session's recent steps that
// changed files (newest first, and each run as a whole); `/rewind N [--files-only]` works out
// the rewind to before the Nth, shows it (what it restores and removes, the files changed
// since reson's snapshot, named) as a tool call, and asks through session/request_permission:
// files and conversation, files only, or cancel; `/rewind undo` undoes the latest rewind. The
// choices, the description and the answers are the agent's, shared with the terminal.
import { join } from "node:path";
import type {
  PermissionOption,
  RequestPermissionRequest,
  RequestPermissionResponse,
  ToolCallLocation,
} from "@agentclientprotocol/sdk";
import {
  answeredRewind,
  applyRewind,
  describeRewind,
  type PreparedRewind,
  prepareRewind,
  type RewindAnswer,
  rewindChangesNothing,
  rewindChoices,
  rewindOptions,
} from "../agent/index.js";
import { printable } from "../core/printable-text.js";
import type { Store } from "../store/index.js";
import { textContent } from "./tool-call-view.js";
import type { UpdateSender } from "./update-sender.js";

export interface RewindScope {
  store: Store;
  sessionId: string;
  /** The session's workspace root. */
  root: string;
  updates: UpdateSender;
  /** Asks the editor (session/request_permission); undefined when it did not answer. */
  ask: (request: RequestPermissionRequest) => Promise<RequestPermissionResponse | undefined>;
}

const USAGE =
  "`/rewind` lists the steps that changed files; `/rewind N` rewinds files and conversation to before the Nth (`--files-only`: the files alone); `/rewind undo` undoes the latest rewind.";

/** Files listed as the tool call's locations at most. */
const MAX_LOCATIONS = 20;

/** `/rewind [N [--files-only] | undo]`: what to say in the session when it is done. */
export async function editorRewind(args: string, scope: RewindScope): Promise<string> {
  const words = args.split(/\s+/).filter(Boolean);
  if (words.length === 0) return listing(scope);
  if (words.length === 1 && words[0] === "undo")
    return confirmAndApply(await prepareRewind(scope.store, { undo: true, workspace: scope.root }), scope);
  const filesOnly = words[1] === "--files-only";
  const picked = Number(words[0]);
  if (!Number.isInteger(picked) || picked < 1 || words.length > (filesOnly ? 2 : 1)) return `Usage: ${USAGE}`;
  const choice = (await rewindChoices(scope.store, scope.sessionId, scope.root, printable))[picked - 1];
  if (!choice) return `There is no step ${picked} to rewind to. ${USAGE}`;
  const prepared = await prepareRewind(scope.store, {
    id: choice.runId,
    ...(choice.toStep === undefined ? {} : { toStep: choice.toStep }),
    ...(filesOnly ? { filesOnly: true } : {}),
  });
  return confirmAndApply(prepared, scope);
}

async function listing(scope: RewindScope): Promise<string> {
  const choices = await rewindChoices(scope.store, scope.sessionId, scope.root, printable);
  if (choices.length === 0) return "Nothing in this session changed files.";
  const lines = choices.map((choice, i) => `${i + 1}) ${choice.label}`);
  return `Rewind the files to before (newest first):\n${lines.join("\n")}\n\n${USAGE}`;
}

/** The rewind shown as a pending tool call, the editor asked, and the answer done. */
async function confirmAndApply(prepared: PreparedRewind, scope: RewindScope): Promise<string> {
  // File names and the run's task are written out, as the terminal's /rewind does.
  const description = describeRewind(prepared, printable).join("\n");
  if (rewindChangesNothing(prepared)) return `${description}\nNothing to do.`;
  const toolCallId = prepared.id;
  const title = description.split("\n", 1)[0]!.replace(/:$/, "");
  const locations: ToolCallLocation[] = prepared.plan.changes
    .slice(0, MAX_LOCATIONS)
    .map((change) => ({ path: join(prepared.workspace, change.path) }));
  const content = [textContent(description)];
  scope.updates.send({
    sessionUpdate: "tool_call",
    toolCallId,
    title,
    kind: "edit",
    status: "pending",
    content,
    locations,
  });
  const offered = rewindOptions(prepared);
  const options: PermissionOption[] = offered.map((option) => ({
    optionId: option.answer,
    name: option.label,
    kind: option.answer === "cancel" ? "reject_once" : "allow_once",
  }));
  await scope.updates.flush();
  const response = await scope.ask({
    sessionId: scope.sessionId,
    toolCall: { toolCallId, title, kind: "edit", status: "pending", content, locations },
    options,
  });
  const outcome = response?.outcome;
  const answer: RewindAnswer =
    outcome?.outcome === "selected" && offered.some((option) => option.answer === outcome.optionId)
      ? (outcome.optionId as RewindAnswer)
      : "cancel";
  const chosen = answeredRewind(prepared, answer);
  if (!chosen) {
    scope.updates.send({ sessionUpdate: "tool_call_update", toolCallId, status: "failed" });
    return "Nothing was changed.";
  }
  const result = await applyRewind(scope.store, chosen, { force: prepared.plan.conflicts.length > 0 });
  scope.updates.send({ sessionUpdate: "tool_call_update", toolCallId, status: "completed" });
  const changes = `${result.operations} change${result.operations === 1 ? "" : "s"} to files and folders`;
  if (chosen.undoes) return `Undid rewind ${chosen.undoes.id} (${changes}).`;
  const what = chosen.conversation ? "files and conversation" : "files";
  return `Rewound the ${what} (${changes}). \`/rewind undo\` puts it back.`;
}
