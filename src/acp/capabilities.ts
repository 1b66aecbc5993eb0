// What reson tells an editor it can do, in answer to initialize: honest. Sessions are stored, so
// they can be loaded (replayed), resumed, listed and closed; prompts take text, links to files
// and embedded file contents, images where the model reads them (image-capability.ts), never
// audio; MCP servers the editor passes may be local (stdio, always), HTTP or SSE. No login:
// keys come from the environment, as for `reson run`. Answered before the SDK loads
// (handshake.ts), so nothing here is imported from it but types.
import type { InitializeResponse, ProtocolVersion } from "@agentclientprotocol/sdk";

/** ACP's protocol version reson speaks (the SDK's PROTOCOL_VERSION; a test holds them equal). */
export const ACP_PROTOCOL_VERSION: ProtocolVersion = 1;

/** `images`: whether prompts may carry images (advertisedImages). */
export function initializeResponse(version: string, images: boolean): InitializeResponse {
  return {
    protocolVersion: ACP_PROTOCOL_VERSION,
    agentCapabilities: {
      loadSession: true,
      promptCapabilities: { image: images, audio: false, embeddedContext: true },
      mcpCapabilities: { http: true, sse: true },
      sessionCapabilities: { list: {}, resume: {}, close: {} },
    },
    authMethods: [],
    agentInfo: { name: "reson", title: "reson", version },
  };
}
