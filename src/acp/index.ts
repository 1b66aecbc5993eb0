// The editor protocol: `reson acp` serves the Agent Client Protocol on a pair of streams, each
// editor session a reson session whose runs start through the runner like every host's. The
// first exchange (initialize) is answered by the handshake before the host, the SDK and the
// runner load; serveAcp loads them.
import type { AcpOptions } from "./acp-host.js";

export type { AcpOptions } from "./acp-host.js";
export { answerInitialize, type Handshake, type HandshakeStreams } from "./handshake.js";
export { advertisedImages } from "./image-capability.js";

/** Serves the connection; the host (the ACP SDK, the runner, the store) is loaded only now. */
export async function serveAcp(options: AcpOptions): Promise<void> {
  const host = await import("./acp-host.js");
  return host.serveAcp(options);
}
