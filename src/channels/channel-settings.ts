// The channels of $RESON_HOME/config.json made ready to run: `<secret>name</secret>` references
// in tokens filled from the user's secrets (a Telegram token only where its scope names the Bot
// API's URL), who may talk, and the settings of each channel's runs.
import { join } from "node:path";
import type { ChannelsConfig } from "../config/index.js";
import { ResonError } from "../core/errors.js";
import { type SecretUseScope, SecretVault } from "../secrets/index.js";
import type { Store } from "../store/index.js";
import type { AccessSettings } from "./access.js";
import type { ChannelSetup } from "./channel-setup.js";
import { SlackAdapter } from "./slack/slack-adapter.js";
import { TelegramAdapter } from "./telegram/telegram-adapter.js";
import type { ChannelLog } from "./types.js";
import { WebhookAdapter } from "./webhook/webhook-adapter.js";

const TELEGRAM_API = "https://api.telegram.org";
const SLACK_API = "https://slack.com/api/";

type CommonSettings = NonNullable<ChannelsConfig["telegram"]>;

export async function channelSetups(options: {
  config: ChannelsConfig | undefined;
  home: string;
  store: Store;
  log: ChannelLog;
  env?: NodeJS.ProcessEnv;
}): Promise<ChannelSetup[]> {
  const { config, store, log } = options;
  if (!config) return [];
  const vault = await SecretVault.load(join(options.home, "secrets.json"), {
    env: options.env ?? process.env,
  });
  const setups: ChannelSetup[] = [];
  if (config.telegram) {
    const telegram = config.telegram;
    const apiRoot = telegram.apiRoot ?? TELEGRAM_API;
    setups.push({
      adapter: new TelegramAdapter({
        token: filled(vault, "channels.telegram.token", telegram.token, { url: `${apiRoot}/bot` }),
        ...(telegram.apiRoot ? { apiRoot: telegram.apiRoot } : {}),
        ...(telegram.pollTimeoutS !== undefined ? { pollTimeoutS: telegram.pollTimeoutS } : {}),
        store,
        log,
      }),
      access: accessOf(telegram),
      spec: specOf(telegram),
    });
  }
  if (config.slack) {
    const slack = config.slack;
    const apiUrl = slack.apiUrl ?? SLACK_API;
    if (!slack.signingSecret && !slack.appToken)
      throw new ResonError(
        "config_invalid",
        "channels.slack needs an appToken (Socket Mode) or a signingSecret (Events API).",
        {
          hint: "For a personal agent behind NAT, turn on Socket Mode in the Slack app and set channels.slack.appToken to its app-level token (xapp-…, scope connections:write).",
        },
      );
    setups.push({
      adapter: new SlackAdapter({
        botToken: filled(vault, "channels.slack.botToken", slack.botToken, { url: apiUrl }),
        ...(slack.signingSecret
          ? {
              signingSecret: filled(vault, "channels.slack.signingSecret", slack.signingSecret, {
                url: apiUrl,
              }),
            }
          : {}),
        ...(slack.appToken
          ? { appToken: filled(vault, "channels.slack.appToken", slack.appToken, { url: apiUrl }) }
          : {}),
        ...(slack.apiUrl ? { apiUrl: slack.apiUrl } : {}),
        store,
        log,
      }),
      access: accessOf(slack),
      spec: specOf(slack),
    });
  }
  for (const [name, hook] of Object.entries(config.webhook ?? {})) {
    setups.push({
      adapter: new WebhookAdapter({
        hookName: name,
        secret: filled(vault, `channels.webhook.${name}.secret`, hook.secret, {
          workspaceRoot: hook.workspace,
        }),
        ...(hook.callbackUrl ? { callbackUrl: hook.callbackUrl } : {}),
        ...(hook.replayWindowS ? { replayWindowS: hook.replayWindowS } : {}),
        store,
        log,
      }),
      access: accessOf(hook),
      spec: specOf(hook),
    });
  }
  return setups;
}

function accessOf(settings: Omit<CommonSettings, "token">): AccessSettings {
  return {
    owner: settings.owner ?? [],
    allowFrom: settings.allowFrom ?? [],
    dmPolicy: settings.dmPolicy ?? "pairing",
    groups: settings.groups ?? [],
  };
}

function specOf(settings: Omit<CommonSettings, "token">): ChannelSetup["spec"] {
  return {
    workspace: settings.workspace,
    ...(settings.preset ? { preset: settings.preset } : {}),
    ...(settings.provider ? { provider: settings.provider } : {}),
    ...(settings.model ? { model: settings.model } : {}),
    ...(settings.baseUrl ? { baseUrl: settings.baseUrl } : {}),
    ...(settings.allow ? { allow: settings.allow } : {}),
    ...(settings.deny ? { deny: settings.deny } : {}),
    ...(settings.sandbox ? { sandbox: settings.sandbox } : {}),
    ...(settings.permissionMode ? { permissionMode: settings.permissionMode } : {}),
  };
}

function filled(vault: SecretVault, where: string, value: string, scope: SecretUseScope): string {
  if (!value.includes("<secret>")) return value;
  const result = vault.substituteArgs(value, scope);
  const unusable = [...result.missing, ...result.outOfScope];
  if (unusable.length > 0)
    throw new ResonError(
      "secret_unavailable",
      `${where} names secrets it cannot have: ${unusable.join(", ")}.`,
      {
        hint: scope.url
          ? `Add them to $RESON_HOME/secrets.json under a key matching ${scope.url} (e.g. "${new URL(scope.url).origin}").`
          : `Add them to $RESON_HOME/secrets.json under "workspace:*" or the channel's workspace.`,
      },
    );
  return result.args as string;
}
