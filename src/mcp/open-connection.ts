// Opens an MCP connection, loading the SDK only then. The SDK builds its zod schemas, ajv and
// web streams when it is imported (~20 ms of CPU), which every start of the reson command paid
// while most runs connect to no MCP server. A dynamic import keeps it, and what only it uses,
// out of the bundle's start-up (esbuild runs such a module when it is first imported).
import type { McpConnectOptions } from "./connection.js";
import type { SdkConnection } from "./sdk-connection.js";

export async function openSdkConnection(name: string, options: McpConnectOptions): Promise<SdkConnection> {
  const { SdkConnection } = await import("./sdk-connection.js");
  return SdkConnection.open(name, options);
}
