// Whether `reson acp` tells the editor that prompts may carry images, decided before the model
// is resolved (initialize is answered before reson loads): the provider named by -p/--provider
// or RESON_PROVIDER, else the one --base-url or RESON_BASE_URL implies (an OpenAI-compatible
// server), else the first whose key is in the environment, as `reson run` picks it. Its default
// model decides (local servers: no). A model that turns out to read text only still refuses an
// image at the prompt (a parameter error), so a wrong "yes" costs a clear error, never a crash.
import { AUTO_DETECT_ORDER, PROVIDER_CATALOG, type ProviderName } from "../providers/index.js";

/** The value of `--name value`, `--name=value` or `-short value` in argv; the last one wins. */
function flagValue(argv: readonly string[], long: string, short?: string): string | undefined {
  let value: string | undefined;
  argv.forEach((arg, i) => {
    if (arg === `--${long}` || (short && arg === `-${short}`)) value = argv[i + 1];
    else if (arg.startsWith(`--${long}=`)) value = arg.slice(long.length + 3);
  });
  return value?.trim() || undefined;
}

function named(name: string | undefined): ProviderName | undefined {
  const normalised = name?.trim().toLowerCase();
  return normalised && Object.hasOwn(PROVIDER_CATALOG, normalised) ? (normalised as ProviderName) : undefined;
}

/** The provider `reson acp` with these arguments and environment will most likely use. */
export function likelyProvider(argv: readonly string[], env: NodeJS.ProcessEnv): ProviderName | undefined {
  const given = flagValue(argv, "provider", "p") ?? env.RESON_PROVIDER?.trim();
  if (given) return named(given);
  if (flagValue(argv, "base-url") ?? env.RESON_BASE_URL?.trim()) return "openai-compatible";
  return AUTO_DETECT_ORDER.find((name) => {
    const key = PROVIDER_CATALOG[name].envKey;
    return key !== undefined && Boolean(env[key]?.trim());
  });
}

/** initialize's promptCapabilities.image: whether the likely provider's default model reads images. */
export function advertisedImages(argv: readonly string[], env: NodeJS.ProcessEnv): boolean {
  const provider = likelyProvider(argv, env);
  return provider !== undefined && PROVIDER_CATALOG[provider].defaultModelTakesImages;
}
