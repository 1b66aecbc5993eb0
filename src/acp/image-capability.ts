// Whether `reson acp` tells the editor that prompts may carry images. initialize is answered
// before reson loads (handshake.ts), so this reads what decides the sessions' model the way
// loadConfig and resolveProviderSettings will, without them: provider, model and base URL from
// $RESON_HOME/config.json < the workspace's .reson/config.json (its baseUrl ignored, as
// loadConfig does) < RESON_PROVIDER, RESON_MODEL, RESON_BASE_URL < -p, -m, --base-url; then the
// provider named, else the OpenAI-compatible server a base URL implies, else the first whose key
// is in the environment (none: a local Ollama, text only); then whether that model reads images
// (modelTakesImages, pi-ai's registry without loading it). The workspace is the directory the
// editor started reson in; a session/new elsewhere, a registered workspace's settings or a
// preset's model may still pick another model, and the model can change within a session
// (/model, the model option): the prompt checks the session's model each time, and an image to
// a text-only one is a parameter error (-32602), never a crash.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { resonHome } from "../config/index.js";
import {
  AUTO_DETECT_ORDER,
  modelTakesImages,
  PROVIDER_CATALOG,
  type ProviderName,
} from "../providers/index.js";

interface ModelChoice {
  provider?: string;
  model?: string;
  baseUrl?: string;
}

/** The value of `--name value`, `--name=value` or `-short value` in argv; the last one wins. */
function flagValue(argv: readonly string[], long: string, short?: string): string | undefined {
  let value: string | undefined;
  argv.forEach((arg, i) => {
    if (arg === `--${long}` || (short && arg === `-${short}`)) value = argv[i + 1];
    else if (arg.startsWith(`--${long}=`)) value = arg.slice(long.length + 3);
  });
  return value?.trim() || undefined;
}

const text = (value: unknown) => (typeof value === "string" && value.trim() ? value.trim() : undefined);

/** A config file's provider, model and base URL; nothing when it is missing or broken (the session reports that). */
function fileChoice(path: string): ModelChoice {
  try {
    const parsed: unknown = JSON.parse(readFileSync(path, "utf8"));
    if (typeof parsed !== "object" || parsed === null) return {};
    const { provider, model, baseUrl } = parsed as Record<string, unknown>;
    return { provider: text(provider), model: text(model), baseUrl: text(baseUrl) };
  } catch {
    return {};
  }
}

/** Later sources over earlier ones, field by field, as loadConfig merges them. */
function merged(...choices: ModelChoice[]): ModelChoice {
  const out: ModelChoice = {};
  for (const choice of choices)
    for (const key of ["provider", "model", "baseUrl"] as const) if (choice[key]) out[key] = choice[key];
  return out;
}

function named(name: string): ProviderName | undefined {
  const normalised = name.toLowerCase();
  return Object.hasOwn(PROVIDER_CATALOG, normalised) ? (normalised as ProviderName) : undefined;
}

/** The provider and model the sessions of `reson acp` with these arguments will use. */
export function likelyModel(
  argv: readonly string[],
  env: NodeJS.ProcessEnv,
  workspace: string,
): { provider: ProviderName; model: string } | undefined {
  const { baseUrl: _projectCannotRedirect, ...project } = fileChoice(
    join(workspace, ".reson", "config.json"),
  );
  const choice = merged(
    fileChoice(join(resonHome(env), "config.json")),
    project,
    { provider: text(env.RESON_PROVIDER), model: text(env.RESON_MODEL), baseUrl: text(env.RESON_BASE_URL) },
    {
      provider: flagValue(argv, "provider", "p"),
      model: flagValue(argv, "model", "m"),
      baseUrl: flagValue(argv, "base-url"),
    },
  );
  const provider = choice.provider
    ? named(choice.provider)
    : choice.baseUrl
      ? "openai-compatible"
      : AUTO_DETECT_ORDER.find((name) => {
          const key = PROVIDER_CATALOG[name].envKey;
          return key !== undefined && Boolean(env[key]?.trim());
        });
  if (!provider) return undefined;
  return { provider, model: choice.model ?? PROVIDER_CATALOG[provider].defaultModel };
}

/** initialize's promptCapabilities.image: whether the sessions' model reads images. */
export function advertisedImages(
  argv: readonly string[],
  env: NodeJS.ProcessEnv,
  workspace = process.cwd(),
): boolean {
  const likely = likelyModel(argv, env, workspace);
  return likely !== undefined && modelTakesImages(likely.provider, likely.model);
}
