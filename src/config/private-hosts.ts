// The one list of loopback and private hosts web_fetch and the browser may reach.
import type { ResonConfig } from "./schema.js";

/** web.allowPrivateHosts and its older name browser.allowPrivateHosts, together. */
export function allowedPrivateHosts(config: Pick<ResonConfig, "web" | "browser">): string[] {
  return [...new Set([...config.web.allowPrivateHosts, ...config.browser.allowPrivateHosts])];
}
