// The REPL's answer to "ask": shows the tool, its arguments and why it needs approval, and
// reads one answer (y/s/p/u/n/m/e). Edit changes only the tool's editableParams.
import type { PermissionAnswer, PermissionPrompt } from "../permissions/index.js";
import { shortenArguments } from "./render-human.js";

export interface PromptIo {
  write(text: string): void;
  /** The next line, or null when input ended or the prompt was cancelled. */
  read(prompt: string): Promise<string | null>;
}

const CHOICES =
  "  [y] allow once  [s] allow for this session  [p] always in this project  [u] always for me\n" +
  "  [n] deny  [m] deny with a note  [e] edit\n";

export async function askPermission(prompt: PermissionPrompt, io: PromptIo): Promise<PermissionAnswer> {
  io.write(`\n? ${prompt.tool} ${shortenArguments(prompt.arguments)}\n`);
  io.write(`  ${prompt.decision.reason}\n`);
  io.write(CHOICES);
  for (;;) {
    const line = await io.read("allow? [y/s/p/u/n/m/e] ");
    if (line === null) return { kind: "deny", note: "The user did not answer." };
    const key = line.trim().toLowerCase().slice(0, 1);
    switch (key) {
      case "y":
        return { kind: "allow_once" };
      case "s":
        return { kind: "allow_session" };
      case "p":
        io.write(`  added to .reson/settings.local.json: ${prompt.suggestedRule}\n`);
        return { kind: "allow_project" };
      case "u":
        io.write(`  added to your settings.json: ${prompt.suggestedRule}\n`);
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
        io.write("  answer y, s, p, u, n, m or e\n");
    }
  }
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
