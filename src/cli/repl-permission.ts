// The REPL's answer to "ask": shows the call (permission-view.ts), then reads one key
// (y/s/p/u/n/m/e; on a terminal without Enter). "Always" answers say which rules they saved.
// Edit changes only the tool's editableParams (a command; every argument of an MCP call).
import type { PermissionAnswer, PermissionPrompt } from "../permissions/index.js";
import { callView, choicesView } from "./permission-view.js";

export interface PromptIo {
  write(text: string): void;
  /** The next line, or null when input ended or the prompt was cancelled. */
  read(prompt: string): Promise<string | null>;
  /** One key, lower-cased ("" for a key that is not a character); null as for read. */
  readKey(prompt: string): Promise<string | null>;
  /** Colours (a terminal); plain text through pipes. */
  color?: boolean;
  /** The terminal's width, to wrap long text; undefined through a pipe. */
  columns?: number;
}

export async function askPermission(prompt: PermissionPrompt, io: PromptIo): Promise<PermissionAnswer> {
  io.write(`\n${await callView(prompt, { color: io.color === true, columns: io.columns })}`);
  const rules = prompt.session ? prompt.suggestedRules : undefined;
  const keys = rules ? ["y", "s", "p", "u", "n", "m", "e"] : ["y", "n", "m", "e"];
  io.write(choicesView(prompt, io.columns));
  for (;;) {
    const key = await io.readKey(`allow? [${keys.join("/")}] `);
    if (key === null) return { kind: "deny", note: "The user did not answer." };
    switch (keys.includes(key) ? key : "") {
      case "y":
        return { kind: "allow_once" };
      case "s":
        return { kind: "allow_session" };
      case "p":
        io.write(`  added to .reson/settings.local.json: ${rules?.join(", ")}\n`);
        return { kind: "allow_project" };
      case "u":
        io.write(`  added to your settings.json: ${rules?.join(", ")}\n`);
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
    const shown =
      current === undefined ? "(not set)" : typeof current === "string" ? current : JSON.stringify(current);
    io.write(`  ${param}: ${shown}\n`);
    const line = await io.read(`  new ${param} (empty keeps it): `);
    if (line === null) return undefined;
    if (!line.trim()) continue;
    args[param] = typeof current === "string" ? line : parseValue(line);
  }
  return args;
}

/** A typed value: JSON where it parses (a number, an object), else the text itself. */
function parseValue(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
