// What serve keeps of a task a client posts: every value reson masks elsewhere (the user's
// secrets, the providers' keys from the environment, the chat channels' credentials, serve's
// own token) as its `<secret>` placeholder, as `reson run` keeps its task. The queue, the
// session's title and every answer hold the placeholders; the run works from them.
import { join } from "node:path";
import { PROVIDER_CATALOG } from "../providers/index.js";
import { SecretVault } from "../secrets/index.js";

export interface TaskMaskingOptions {
  /** $RESON_HOME: its secrets.json is read at each task, so a secret added since counts. */
  home: string;
  env: NodeJS.ProcessEnv;
  /** Values the host itself holds (its token, its channels' credentials), by name. */
  masked: readonly { name: string; value: string | undefined }[];
}

/** The masker of posted tasks. */
export function taskMasker(options: TaskMaskingOptions): (text: string) => Promise<string> {
  const providerKeys = Object.values(PROVIDER_CATALOG).flatMap((entry) =>
    entry.envKey ? [{ name: "provider_api_key", value: options.env[entry.envKey] }] : [],
  );
  return async (text) => {
    const vault = await SecretVault.load(join(options.home, "secrets.json"), { env: options.env });
    for (const { name, value } of [...options.masked, ...providerKeys]) {
      if (!value || value.length < vault.redactor.minLength) continue;
      vault.redactor.add(name, value);
    }
    return vault.redactor.redact(text);
  };
}
