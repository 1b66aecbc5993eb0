// A workspace's settings: config values (the keys of config.json, e.g. `model` or
// `memory.enabled`) that apply to every run in it, changed one dotted key at a time and
// checked against the config schema before they are kept.
import { type PartialConfig, validatePartialConfig } from "../config/index.js";
import { ResonError } from "../core/errors.js";

export interface SettingsChange {
  /** "key=value": a dotted key; the value is JSON when it reads as JSON, else a string. */
  set: readonly string[];
  /** Dotted keys to remove. */
  unset: readonly string[];
}

function parsedValue(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text; // a bare word: model names, URLs
  }
}

function pathOf(key: string): string[] {
  const parts = key.split(".");
  if (
    parts.some(
      (part) => part === "" || part === "__proto__" || part === "constructor" || part === "prototype",
    )
  )
    throw new ResonError("usage_error", `"${key}" is not a settings key.`, {
      hint: "Name a key of config.json, dotted for nested ones: model, memory.enabled, limits.maxCostUsd.",
    });
  return parts;
}

function setIn(target: Record<string, unknown>, path: string[], value: unknown): void {
  let at = target;
  for (const part of path.slice(0, -1)) {
    const next = at[part];
    if (typeof next !== "object" || next === null || Array.isArray(next)) at[part] = {};
    at = at[part] as Record<string, unknown>;
  }
  at[path.at(-1)!] = value;
}

function unsetIn(target: Record<string, unknown>, path: string[]): void {
  const parents: Record<string, unknown>[] = [target];
  for (const part of path.slice(0, -1)) {
    const next = parents.at(-1)![part];
    if (typeof next !== "object" || next === null) return;
    parents.push(next as Record<string, unknown>);
  }
  delete parents.at(-1)![path.at(-1)!];
  // Objects left empty go too, so `unset memory.enabled` leaves no `memory: {}` behind.
  for (let i = parents.length - 1; i > 0; i--) {
    if (Object.keys(parents[i]!).length > 0) break;
    delete parents[i - 1]![path[i - 1]!];
  }
}

/** The settings after the change, checked like a config file (config_invalid says which key is wrong). */
export function changedSettings(
  current: Record<string, unknown>,
  change: SettingsChange,
  name: string,
): PartialConfig {
  const next = structuredClone(current);
  for (const key of change.unset) unsetIn(next, pathOf(key));
  for (const pair of change.set) {
    const at = pair.indexOf("=");
    if (at <= 0)
      throw new ResonError("usage_error", `"${pair}" is not key=value.`, {
        hint: "Give each setting as key=value, e.g. model=gpt-5 or memory.enabled=false.",
      });
    setIn(next, pathOf(pair.slice(0, at)), parsedValue(pair.slice(at + 1)));
  }
  return validatePartialConfig(`the settings of workspace ${name}`, next);
}
