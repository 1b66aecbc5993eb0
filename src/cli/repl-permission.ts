// The REPL's answer to "ask": shows the tool and why it needs approval (a file change as its
// diff, other calls by their arguments), says what each answer covers, and reads one answer
// (y/s/p/u/n/m/e). Edit changes only the tool's editableParams.
import type { PermissionAnswer, PermissionPrompt } from "../permissions/index.js";
import type { ToolPreview } from "../tools/index.js";
import { fileDiff, printable } from "./file-diff.js";
import { shortenArguments } from "./render-human.js";

export interface PromptIo {
  write(text: string): void;
  /** The next line, or null when input ended or the prompt was cancelled. */
  read(prompt: string): Promise<string | null>;
  /** Colours (a terminal); plain text through pipes. */
  color?: boolean;
}

export async function askPermission(prompt: PermissionPrompt, io: PromptIo): Promise<PermissionAnswer> {
  io.write(`\n${await callView(prompt, io.color === true)}`);
  const rule = prompt.session ? prompt.suggestedRule : undefined;
  const keys = rule ? ["y", "s", "p", "u", "n", "m", "e"] : ["y", "n", "m", "e"];
  io.write(choices(prompt, rule));
  for (;;) {
    const line = await io.read(`allow? [${keys.join("/")}] `);
    if (line === null) return { kind: "deny", note: "The user did not answer." };
    const key = line.trim().toLowerCase().slice(0, 1);
    switch (keys.includes(key) ? key : "") {
      case "y":
        return { kind: "allow_once" };
      case "s":
        return { kind: "allow_session" };
      case "p":
        io.write(`  added to .reson/settings.local.json: ${rule}\n`);
        return { kind: "allow_project" };
      case "u":
        io.write(`  added to your settings.json: ${rule}\n`);
        return { kind: "allow_user" };
      case "n":
        return { kind: "deny" };
      case "m": {
        const note = await io.read("note to the model: ");
        if (note === null) return { kind: "deny" };
        return note.trim() ? { kind: "deny", note: note.trim() } : { kind: "deny" };
      }
      case "e": {
        const edited = await editArguments(prompt, io);
        if (edited) return { kind: "edit", arguments: edited };
        break;
      }
      default:
        io.write(`  answer ${keys.slice(0, -1).join(", ")} or ${keys.at(-1)}\n`);
    }
  }
}

/** The answers and what each covers; only y/n/m/e where no rule could spare the next question. */
function choices(prompt: PermissionPrompt, rule: string | undefined): string {
  const once = "  [y] allow once  [n] deny  [m] deny with a note  [e] edit\n";
  if (!rule || !prompt.session) return `${once}  (asked every time: no answer covers later calls)\n`;
  return (
    `${once}  [s] allow ${prompt.session.covers}\n` +
    `  [p] always in this project  [u] always for me: adds ${rule}\n`
  );
}

/** The first lines of the prompt: the call and why it is asked, and for a file change its diff. */
async function callView(prompt: PermissionPrompt, color: boolean): Promise<string> {
  const change = prompt.change;
  const why = `  ${prompt.decision.reason}\n`;
  const call = `? ${prompt.tool} ${shortenArguments(prompt.arguments)}\n`;
  if (!change) return call + why;
  if (!change.ok) return `${call + why}  as it stands this call would fail: ${printable(change.message)}\n`;
  const diff = await fileDiff(change.change, { color });
  const title = `? ${prompt.tool} ${printable(change.change.path)} (${changeSummary(prompt, change, diff)})\n`;
  return `${title + why + diff.lines.join("\n")}\n`;
}

function changeSummary(
  prompt: PermissionPrompt,
  preview: Extract<ToolPreview, { ok: true }>,
  diff: { added: number; removed: number },
): string {
  const change = preview.change;
  const counts = `+${diff.added} -${diff.removed}`;
  if (change.replacements !== undefined) {
    const all = prompt.arguments.replace_all === true ? ", replace_all" : "";
    return `${change.replacements} replacement${change.replacements === 1 ? "" : "s"}${all}, ${counts}`;
  }
  if (change.before === null && !change.beforeUnreadable) return `new file, ${plural(diff.added, "line")}`;
  return `overwrites the file, ${counts}`;
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? "" : "s"}`;
}

/** Reads new values for the editable parameters; undefined when there is nothing to edit. */
async function editArguments(
  prompt: PermissionPrompt,
  io: PromptIo,
): Promise<Record<string, unknown> | undefined> {
  if (prompt.editableParams.length === 0) {
    io.write(`  ${prompt.tool} declares no editable parameters; answer another way.\n`);
    return undefined;
  }
  const args = { ...prompt.arguments };
  for (const param of prompt.editableParams) {
    const current = args[param];
    const shown = typeof current === "string" ? current : JSON.stringify(current ?? null);
    io.write(`  ${param}: ${shown}\n`);
    const line = await io.read(`  new ${param} (empty keeps it): `);
    if (line === null) return undefined;
    if (!line.trim()) continue;
    args[param] = typeof current === "string" || current === undefined ? line : parseValue(line);
  }
  return args;
}

function parseValue(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
