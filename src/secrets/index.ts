// Secrets: loaded from $RESON_HOME/secrets.json, named (never shown) to the model, filled in
// right before a tool runs, and redacted back to `<secret>name</secret>` everywhere else.
export type { SecretScope } from "./scope.js";
export { describeScope, parseScope } from "./scope.js";
export type {
  SecretEntry,
  SecretsContents,
  SecretsFileOptions,
  SecretsParseOptions,
} from "./secrets-file.js";
export { parseSecrets, readSecretsFile } from "./secrets-file.js";
export type { CommandSubstitution, SecretLookup } from "./shell-substitution.js";
export { substituteCommandSecrets } from "./shell-substitution.js";
export type { TotpGenerator } from "./totp.js";
export { isTotpSecret, parseTotp } from "./totp.js";
export type { SecretNameInfo, SecretUseScope, SecretVaultOptions, SubstitutedArgs } from "./vault.js";
export { SecretVault } from "./vault.js";
