// Public surface of the config module.
export {
  type ChannelsConfig,
  ChannelsSchema,
  channelCredentials,
  type TelegramChannelConfig,
  type WebhookChannelConfig,
} from "./channels-schema.js";
export { CONFIG_ENV_VARS, configFromEnv } from "./env.js";
export { resonHome } from "./home.js";
export {
  type ConfigSource,
  type LoadConfigOptions,
  type LoadedConfig,
  loadConfig,
  validatePartialConfig,
} from "./load.js";
export {
  BUILTIN_PRESETS,
  loadPresets,
  type Preset,
  type PresetFields,
  PresetSchema,
  pickPreset,
  READ_ONLY_PRESET_TOOLS,
} from "./presets.js";
export { allowedPrivateHosts } from "./private-hosts.js";
export {
  ConfigSchema,
  DEFAULT_CONFIG,
  type McpServerConfig,
  McpServerSchema,
  type PartialConfig,
  PartialConfigSchema,
  type ResonConfig,
} from "./schema.js";
export { isTrustedFolder, TRUSTED_FOLDERS_FILE, trustedFoldersPath, trustFolder } from "./trust.js";
