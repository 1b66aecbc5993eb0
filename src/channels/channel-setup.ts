// A channel as the hub runs it: the platform's adapter, who may talk, and its runs' settings.
import type { RunSpec } from "../runner/index.js";
import type { AccessSettings } from "./access.js";
import type { ChannelAdapter } from "./types.js";

export interface ChannelSetup {
  adapter: ChannelAdapter;
  access: AccessSettings;
  spec: Partial<RunSpec> & { workspace: string };
}
