// Presets: named agent types. Each gives a model (optional), an addition to the system prompt,
// the tools offered, whether the workspace is read-only, and limits. Built-in presets come
// first; $RESON_HOME/presets.json and then <workspace>/.reson/presets.json change them field by
// field or add new ones. Read-only is structural: a read-only preset gets no write tools, and
// its commands see the workspace mounted read-only.
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { type Static, Type } from "typebox";
import { ResonError } from "../core/errors.js";
import { typeboxValue } from "../core/typebox-runtime.js";

const LimitsSchema = Type.Object(
  {
    maxTokens: Type.Optional(Type.Integer({ minimum: 1 })),
    maxCostUsd: Type.Optional(Type.Number({ exclusiveMinimum: 0 })),
    maxWallMs: Type.Optional(Type.Integer({ minimum: 1 })),
  },
  { additionalProperties: false },
);

export const PresetSchema = Type.Object(
  {
    description: Type.Optional(Type.String()),
    model: Type.Optional(Type.String({ minLength: 1 })),
    /** Added to the system prompt. */
    instructions: Type.Optional(Type.String()),
    /** The tools offered (by reson name); absent: every tool. */
    tools: Type.Optional(Type.Array(Type.String({ minLength: 1 }))),
    /** No write tools; commands run with the workspace mounted read-only (or are not offered). */
    readOnly: Type.Optional(Type.Boolean()),
    maxIterations: Type.Optional(Type.Integer({ minimum: 1 })),
    limits: Type.Optional(LimitsSchema),
  },
  { additionalProperties: false },
);

const PresetFileSchema = Type.Record(Type.String({ pattern: "^[A-Za-z0-9_-]{1,64}$" }), PresetSchema);

export type PresetFields = Static<typeof PresetSchema>;

export interface Preset extends PresetFields {
  name: string;
  description: string;
  /** Where it was defined last: "built-in" or a presets.json path. */
  source: string;
}

/** The tools a read-only agent may have: they look, never change (commands: read-only mount). */
export const READ_ONLY_PRESET_TOOLS = [
  "list_files",
  "read_file",
  "glob",
  "grep",
  "execute_command",
  "read_artifact",
  "goal",
  "skill",
  "ask_human",
];

export const BUILTIN_PRESETS: Readonly<Record<string, Preset>> = {
  default: {
    name: "default",
    description: "The general agent: every tool, the usual limits.",
    source: "built-in",
  },
  explore: {
    name: "explore",
    description: "Looks around and reports: read-only tools, commands on a read-only workspace.",
    readOnly: true,
    tools: READ_ONLY_PRESET_TOOLS,
    instructions:
      "You are exploring, not changing anything: find what the task asks about and report it with file " +
      "paths and line numbers. You cannot write files; commands see the workspace read-only.",
    source: "built-in",
  },
  plan: {
    name: "plan",
    description: "Makes a plan as a goal tree without changing anything.",
    readOnly: true,
    tools: READ_ONLY_PRESET_TOOLS,
    instructions:
      "You are planning, not doing: read what you need, then build the plan with the goal tool (one goal " +
      "per step, nested where steps have parts), and end with a short summary of the plan and its risks. " +
      "You cannot write files; commands see the workspace read-only.",
    source: "built-in",
  },
  analyst: {
    name: "analyst",
    description: "Answers questions about the code or data with evidence; read-only.",
    readOnly: true,
    tools: READ_ONLY_PRESET_TOOLS,
    instructions:
      "You are an analyst: answer with evidence (file paths, line numbers, command output), say how " +
      "confident you are and what would change your answer. You cannot write files.",
    source: "built-in",
  },
  evaluate: {
    name: "evaluate",
    description: "Checks a result against criteria and gives a verdict; read-only.",
    readOnly: true,
    tools: READ_ONLY_PRESET_TOOLS,
    instructions:
      "You are evaluating work someone else did: check it against the criteria given (run the tests, read " +
      "the changes), then answer with a first line `VERDICT: pass` or `VERDICT: fail`, followed by the " +
      "reasons and anything that must be fixed. You cannot write files.",
    source: "built-in",
  },
};

async function readPresetFile(path: string): Promise<Record<string, PresetFields> | undefined> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw new ResonError("config_invalid", `Cannot read ${path}: ${(error as Error).message}`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new ResonError("config_invalid", `${path} is not valid JSON: ${(error as Error).message}`, {
      hint: 'Write it as { "<name>": { "description": "…", "tools": ["read_file"], "readOnly": true } }.',
    });
  }
  if (!typeboxValue().Check(PresetFileSchema, value)) {
    const problems = typeboxValue()
      .Errors(PresetFileSchema, value)
      .filter((e) => e.keyword !== "boolean")
      .slice(0, 5)
      .map((e) => `${e.instancePath.slice(1).replaceAll("/", ".") || "(top level)"}: ${e.message}`);
    throw new ResonError("config_invalid", `Invalid presets in ${path}: ${problems.join("; ")}`, {
      hint: "Fields: description, model, instructions, tools, readOnly, maxIterations, limits {maxTokens, maxCostUsd, maxWallMs}; names: letters, digits, _ and -.",
    });
  }
  return value as Record<string, PresetFields>;
}

/** Built-in presets changed and extended by the user's and then the project's presets.json. */
export async function loadPresets(options: {
  home: string;
  workspace: string;
}): Promise<Map<string, Preset>> {
  const presets = new Map(Object.entries(BUILTIN_PRESETS).map(([name, preset]) => [name, { ...preset }]));
  for (const path of [
    join(options.home, "presets.json"),
    join(options.workspace, ".reson", "presets.json"),
  ]) {
    const found = await readPresetFile(path);
    for (const [name, fields] of Object.entries(found ?? {})) {
      const base = presets.get(name);
      presets.set(name, {
        ...base,
        ...fields,
        name,
        description: fields.description ?? base?.description ?? name,
        source: path,
      });
    }
  }
  return presets;
}

/** The preset called `name`, or a usage error listing those there are. */
export function pickPreset(presets: ReadonlyMap<string, Preset>, name: string): Preset {
  const preset = presets.get(name);
  if (preset) return preset;
  throw new ResonError("usage_error", `There is no preset named ${JSON.stringify(name)}.`, {
    hint: `Presets: ${[...presets.keys()].join(", ")}; add your own in .reson/presets.json or $RESON_HOME/presets.json.`,
  });
}
