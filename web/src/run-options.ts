// The choices of a run started from the page besides its task: the agent's preset, the
// permission mode and the model (each left to the serve's configuration when not given).
import { h } from "./dom.js";

const PRESETS = ["default", "explore", "plan", "analyst", "evaluate"];
const MODES: Array<[string, string]> = [
  ["", "mode: as configured"],
  ["default", "default: ask before changes"],
  ["acceptEdits", "acceptEdits: file edits allowed"],
  ["plan", "plan: read only"],
  ["dontAsk", "dontAsk: deny what would ask"],
  ["bypass", "bypass: allow everything"],
];

export interface RunOptions {
  fields: Node[];
  /** The chosen options as the API's run body takes them. */
  values(): { preset?: string; permissionMode?: string; model?: string };
}

function labelled(text: string, control: HTMLElement): HTMLElement {
  return h("label", { class: "field" }, h("span", {}, text), control);
}

export function runOptions(): RunOptions {
  const preset = h("input", {
    type: "text",
    list: "preset-names",
    placeholder: "default",
    id: "run-preset",
  }) as HTMLInputElement;
  const mode = h(
    "select",
    { id: "run-mode" },
    ...MODES.map(([value, text]) => h("option", { value }, text)),
  ) as HTMLSelectElement;
  const model = h("input", {
    type: "text",
    placeholder: "the serve's model",
    id: "run-model",
  }) as HTMLInputElement;
  return {
    fields: [
      h(
        "div",
        { class: "option-row" },
        labelled("Preset", preset),
        h("datalist", { id: "preset-names" }, ...PRESETS.map((p) => h("option", { value: p }))),
        labelled("Permission mode", mode),
        labelled("Model", model),
      ),
    ],
    values: () => ({
      ...(preset.value.trim() ? { preset: preset.value.trim() } : {}),
      ...(mode.value ? { permissionMode: mode.value } : {}),
      ...(model.value.trim() ? { model: model.value.trim() } : {}),
    }),
  };
}
