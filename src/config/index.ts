// Public surface of the config module.
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
  ConfigSchema,
  DEFAULT_CONFIG,
  type PartialConfig,
  PartialConfigSchema,
  type ResonConfig,
} from "./schema.js";
