// A server's prompts as the terminal's slash commands, `/mcp__<server>__<prompt>` (Claude
// Code's form): arguments as `name=value` words, or plain words filling the declared
// arguments in order (the last takes the rest); the prompt's messages become the task.
import { ResonError } from "../core/errors.js";
import type { McpConnection, McpContent, McpPromptInfo } from "./connection.js";
import { blockText } from "./content.js";
import { mcpToolName } from "./tool-name.js";

export interface McpPromptCommand {
  /** Without the slash: mcp__server__prompt. */
  name: string;
  server: string;
  prompt: McpPromptInfo;
}

export async function promptCommands(
  servers: readonly { name: string; connection: McpConnection }[],
  signal: AbortSignal,
): Promise<McpPromptCommand[]> {
  const lists = await Promise.all(
    servers.map(async (s) => {
      const prompts = await s.connection.listPrompts(signal).catch(() => []);
      return prompts.map((prompt) => ({ name: mcpToolName(s.name, prompt.name), server: s.name, prompt }));
    }),
  );
  return lists.flat();
}

/** The prompt's arguments from what the user typed after the command. */
export function promptArguments(prompt: McpPromptInfo, text: string): Record<string, string> {
  const out: Record<string, string> = {};
  const positional: string[] = [];
  const declared = new Set(prompt.arguments.map((a) => a.name));
  for (const word of text.trim().split(/\s+/).filter(Boolean)) {
    const at = word.indexOf("=");
    const key = at > 0 ? word.slice(0, at) : "";
    if (declared.has(key)) out[key] = word.slice(at + 1);
    else positional.push(word);
  }
  const open = prompt.arguments.filter((a) => out[a.name] === undefined);
  open.forEach((arg, i) => {
    if (i >= positional.length) return;
    out[arg.name] = i === open.length - 1 ? positional.slice(i).join(" ") : (positional[i] as string);
  });
  const missing = prompt.arguments.filter((a) => a.required && out[a.name] === undefined).map((a) => a.name);
  if (missing.length > 0) {
    const usage = prompt.arguments.map((a) => (a.required ? `<${a.name}>` : `[${a.name}]`)).join(" ");
    throw new ResonError("usage_error", `The prompt ${prompt.name} needs ${missing.join(", ")}.`, {
      hint: `Give them in order (${usage}) or as name=value.`,
    });
  }
  return out;
}

export function promptText(messages: readonly McpContent[]): string {
  return messages.map(blockText).join("\n\n");
}
