// What a permission prompt shows before it reads the answer: the call (a file change as its
// diff; anything else by its arguments, each whole and wrapped to the terminal, never cut),
// every part that asks and why, and what each answer allows, with the rules it would add.
import type { PermissionPrompt } from "../permissions/index.js";
import type { ToolPreview } from "../tools/index.js";
import { fileDiff, printable } from "./file-diff.js";
import { countOf } from "./format.js";
import { wrapText } from "./wrap-text.js";

export interface ViewOptions {
  color: boolean;
  /** The terminal's width; undefined (a pipe): lines are not wrapped. */
  columns: number | undefined;
}

/** The first lines of the prompt: the call, why it is asked, and for a file change its diff. */
export async function callView(prompt: PermissionPrompt, options: ViewOptions): Promise<string> {
  const change = prompt.change;
  const why = whyLines(prompt, options.columns);
  if (!change)
    return lines([`? ${prompt.tool}`, ...argumentLines(prompt.arguments, options.columns), ...why]);
  if (!change.ok)
    return lines([
      `? ${prompt.tool}`,
      ...argumentLines(prompt.arguments, options.columns),
      ...why,
      ...wrapped(`as it stands this call would fail: ${printable(change.message)}`, options.columns),
    ]);
  const diff = await fileDiff(change.change, { color: options.color });
  const title = `? ${prompt.tool} ${printable(change.change.path)} (${changeSummary(prompt, change, diff)})`;
  return lines([title, ...why, ...diff.lines]);
}

/** The answers and what each covers; only y/n/m/e where no rule could spare the next question. */
export function choicesView(prompt: PermissionPrompt, columns: number | undefined): string {
  const once = "  [y] allow once  [n] deny  [m] deny with a note  [e] edit";
  const rules = prompt.suggestedRules;
  if (!rules || !prompt.session)
    // A call the sandbox refuses anyway says so above: no rule is offered for it either.
    return lines(refusal(prompt) ? [once] : [once, "  (asked every time: no answer covers later calls)"]);
  // Several rules (a command of several parts), the same for every answer: one a line.
  if (rules.length > 1 && prompt.session.rules.join("\n") === rules.join("\n"))
    return lines([
      once,
      ...wrapped("[s] for this session  [p] always in this project  [u] always for me; adds:", columns),
      ...rules.flatMap((rule) =>
        wrapText(rule, { width: columns, indent: "      ", continuation: "        " }),
      ),
    ]);
  return lines([
    once,
    ...wrapped(`[s] allow ${prompt.session.covers}`, columns),
    ...wrapped(`[p] always in this project  [u] always for me: adds ${rules.join(", ")}`, columns),
  ]);
}

/** Each argument whole: `name: value`, a value of several lines (or long JSON) below its name. */
function argumentLines(args: Record<string, unknown>, columns: number | undefined): string[] {
  return Object.entries(args).flatMap(([name, value]) => {
    const text = valueText(value);
    if (!text.includes("\n"))
      return wrapText(`${name}: ${text}`, { width: columns, indent: "    ", continuation: "      " });
    return [`    ${name}:`, ...wrapText(text, { width: columns, indent: "      " })];
  });
}

function valueText(value: unknown): string {
  if (typeof value === "string") return value === "" ? '""' : printableLines(value);
  const compact = JSON.stringify(value) ?? "null";
  const text = compact.length <= 60 ? compact : (JSON.stringify(value, null, 2) ?? "null");
  return printableLines(text);
}

/** Why the call is asked: the reason, or for a command of several parts every part that asks. */
function whyLines(prompt: PermissionPrompt, columns: number | undefined): string[] {
  const decision = prompt.decision;
  const asking = decision.parts?.filter((part) => part.behavior === "ask") ?? [];
  const reasons =
    asking.length > 1
      ? [
          `  asks about ${asking.length} parts:`,
          ...asking.flatMap((part) =>
            wrapText(printable(`${part.part}: ${part.reason}`), {
              width: columns,
              indent: "    - ",
              continuation: "      ",
            }),
          ),
        ]
      : wrapped(printable(decision.reason), columns);
  const refused = refusal(prompt);
  if (refused)
    reasons.push(...wrapped(printable(`this call would fail even if allowed: ${refused}`), columns));
  return reasons;
}

/** Why the call would fail even if allowed (a sandbox refuses it), if it would. */
function refusal(prompt: PermissionPrompt): string | undefined {
  const decision = prompt.decision;
  return [decision, ...(decision.parts ?? [])].find((part) => part.refusedBySandbox)?.refusedBySandbox;
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
  if (change.before === null && !change.beforeUnreadable) return `new file, ${countOf(diff.added, "line")}`;
  return `overwrites the file, ${counts}`;
}

/** One line of the prompt, wrapped under its own start. */
function wrapped(text: string, columns: number | undefined): string[] {
  return wrapText(text, { width: columns, indent: "  ", continuation: "      " });
}

function printableLines(text: string): string {
  return text.split("\n").map(printable).join("\n");
}

function lines(items: string[]): string {
  return `${items.join("\n")}\n`;
}
