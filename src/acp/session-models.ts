// The session's model as an ACP config option (category "model": the editor's model picker):
// the model the session runs now, the one `reson acp` started with, and those the presets name
// (built-in, $RESON_HOME/presets.json, .reson/presets.json), all of the session's provider.
// Any other id the provider serves is taken by the /model command, as in the terminal.
import type { SessionConfigOption } from "@agentclientprotocol/sdk";
import { loadPresets } from "../config/index.js";
import { ResonError } from "../core/errors.js";

export const MODEL_OPTION_ID = "model";

/** The ids offered: `current` first, then the others in the order found, each once. */
export async function modelChoices(
  current: string,
  started: string,
  where: { home: string; workspace: string },
): Promise<string[]> {
  const presets = await loadPresets(where).catch(() => new Map());
  const named = [...presets.values()].flatMap((preset) => (preset.model ? [preset.model as string] : []));
  return [...new Set([current, started, ...named])];
}

export function modelOption(
  current: string,
  choices: readonly string[],
  provider: string,
): SessionConfigOption {
  return {
    id: MODEL_OPTION_ID,
    name: "Model",
    description: `The ${provider} model of this session's next tasks (/model <id> takes any other)`,
    category: "model",
    type: "select",
    currentValue: current,
    options: choices.map((id) => ({ value: id, name: id })),
  };
}

/** The option and value a set_config_option names, checked against what is offered. */
export function requireModelChoice(configId: string, value: unknown, choices: readonly string[]): string {
  if (configId !== MODEL_OPTION_ID)
    throw new ResonError("usage_error", `Unknown config option ${JSON.stringify(configId)}.`, {
      hint: `reson's session options: ${MODEL_OPTION_ID}.`,
    });
  if (typeof value !== "string" || !choices.includes(value))
    throw new ResonError("usage_error", `${JSON.stringify(value)} is not one of the models offered.`, {
      hint: `Pick one of: ${choices.join(", ")}; or send /model <id> for another.`,
    });
  return value;
}
