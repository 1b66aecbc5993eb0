// The config.json of a `reson serve` with chat channels, as the channel tests write it: each
// channel's runs go to the fake model server, with commands outside the OS sandbox (these tests
// are about the chat, not about containment).
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { FakeModelServer } from "./fake-model-server.js";
import type { FakeSlack } from "./fake-slack.js";
import type { FakeTelegram } from "./fake-telegram.js";

/** A channel's run settings for the fake model server. */
export function onFakeModel(model: FakeModelServer) {
  return { provider: "openai-compatible", baseUrl: model.openaiBaseUrl, model: "fake-model", sandbox: "off" };
}

/**
 * A Telegram channel on the fake Bot API (polled every second) whose runs go to the fake model
 * server: `settings` holds the token, workspace, owners and anything else the test sets.
 */
export function telegramOnFakes(
  telegram: FakeTelegram,
  model: FakeModelServer,
  settings: { token: string; workspace: string; owner: string[] } & Record<string, unknown>,
): Record<string, unknown> {
  return { apiRoot: telegram.apiRoot, pollTimeoutS: 1, ...onFakeModel(model), ...settings };
}

/**
 * A Slack channel on the fake Web API whose runs go to the fake model server: `settings` holds
 * the tokens or signing secret, workspace, owners, groups and anything else the test sets.
 */
export function slackOnFakes(
  slack: FakeSlack,
  model: FakeModelServer,
  settings: { botToken: string; workspace: string; owner: string[] } & Record<string, unknown>,
): Record<string, unknown> {
  return { apiUrl: slack.apiUrl, ...onFakeModel(model), ...settings };
}

/** Writes `home`/config.json holding these channels (made with the folder when missing). */
export function writeChannelsConfig(home: string, channels: Record<string, unknown>): void {
  mkdirSync(home, { recursive: true });
  writeFileSync(join(home, "config.json"), JSON.stringify({ channels }));
}
