// The "config" area of `reson doctor`: whether the configuration files load, checked first,
// since the checks that read the configuration (memory, browser, plugins) depend on it. A
// broken file is reported here, with the file and the field, not under the area that tripped
// over it.
import { type LoadedConfig, loadConfig } from "../config/index.js";
import { toResonError } from "../core/errors.js";
import type { Check } from "./doctor-check.js";

export interface ConfigCheck {
  checks: Check[];
  /** Undefined when the configuration does not load. */
  loaded: LoadedConfig | undefined;
}

export async function configCheck(workspace: string): Promise<ConfigCheck> {
  try {
    const loaded = await loadConfig({ workspace });
    const files = loaded.sources.map((s) => s.name).filter((name) => name.endsWith(".json"));
    const checks: Check[] = [
      {
        area: "config",
        state: "ok",
        detail: files.length > 0 ? `loads: ${files.join(", ")}` : "defaults (no config file)",
      },
      ...loaded.warnings.map((warning): Check => ({ area: "config", state: "warn", detail: warning })),
    ];
    return { checks, loaded };
  } catch (error) {
    const failure = toResonError(error);
    return {
      checks: [
        {
          area: "config",
          state: "fail",
          detail: failure.message,
          fix: failure.hint ?? "Correct or remove the file named above; `reson doctor` checks it again.",
        },
      ],
      loaded: undefined,
    };
  }
}

/** What a check that needs the configuration says when it does not load. */
export function notCheckedWithoutConfig(area: string): Check {
  return { area, state: "warn", detail: "not checked: the configuration does not load (see config above)" };
}
