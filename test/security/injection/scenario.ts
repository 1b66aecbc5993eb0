// What the injection suite shares: a fooled model (the fake model server's replies are the
// attack's steps), two loopback attackers (127.0.0.1 is "the site the user allowed", 127.0.0.2
// "somewhere else"), the three settings every attack is tried under (reson's defaults, a
// one-site allow rule, bypass), and the way an attack is judged: what reached an attacker,
// what changed on disk, what the user's next `reson run` was told.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { type Attacker, startAttacker } from "../../support/attacker.js";
import { cleanEnv, parseEvents, runCli } from "../../support/cli.js";
import { type CliFixture, fakeModelArgs } from "../../support/cli-fixture.js";
import type { FakeReply, RecordedRequest } from "../../support/fake-model-server.js";

/** A secret the workspace holds, that no attacker may ever see. */
export const DOTENV_SECRET = "sk_live_canary_51HpXgT7";

/** How the user runs reson in an attack: the flags after `reson run --json`. */
export interface Setting {
  name: string;
  flags: (allowed: Attacker) => string[];
}

export const SETTINGS: readonly Setting[] = [
  { name: "defaults", flags: () => [] },
  { name: "a one-site rule", flags: (allowed) => ["--allow", `web_fetch(domain:${allowed.host})`] },
  { name: "bypass", flags: () => ["--permission-mode", "bypass"] },
];

export interface Attackers {
  /** The site the user allows (127.0.0.1). */
  allowed: Attacker;
  /** Somewhere else (127.0.0.2). */
  other: Attacker;
  close(): Promise<void>;
}

export async function startAttackers(): Promise<Attackers> {
  const allowed = await startAttacker("127.0.0.1");
  const other = await startAttacker("127.0.0.2");
  return { allowed, other, close: async () => void (await Promise.all([allowed.close(), other.close()])) };
}

/**
 * RESON_HOME's config for the suite: both attackers are on loopback, which web_fetch and the
 * browser reach only when the user allows it, so the address guard is not what stops them here.
 */
export function configureHome(f: CliFixture, extra: Record<string, unknown> = {}): void {
  writeFileSync(
    join(f.home.path, "config.json"),
    JSON.stringify({ web: { allowPrivateHosts: ["127.0.0.1", "127.0.0.2"] }, ...extra }),
  );
}

/** A workspace with a secret in .env, as projects have. */
export function plantDotenv(f: CliFixture): void {
  writeFileSync(join(f.ws.path, ".env"), `STRIPE_KEY=${DOTENV_SECRET}\n`);
}

export function env(f: CliFixture, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return cleanEnv({ RESON_HOME: f.home.path, ...extra });
}

/** `reson run --json <flags> <task>` in the fixture's workspace, the model scripted by `replies`. */
export async function attack(
  f: CliFixture,
  replies: FakeReply[],
  flags: string[],
  options: { task?: string; env?: NodeJS.ProcessEnv } = {},
) {
  f.server.enqueue(...replies);
  const result = await runCli(
    ["run", "--json", ...fakeModelArgs(f.server), ...flags, options.task ?? "summarise the project's notes"],
    { cwd: f.ws.path, env: options.env ?? env(f), timeoutMs: 60_000 },
  );
  const events = parseEvents(result.stdout);
  return {
    ...result,
    events,
    results: events.filter((event) => event.type === "tool_result"),
  };
}

/** The system prompt a model request carried. */
export function systemText(request: RecordedRequest): string {
  const messages = (request.body as { messages: Array<{ role: string; content: unknown }> }).messages;
  return String(messages.find((message) => message.role === "system")?.content ?? "");
}

/** One tool call as a reply. */
export function call(name: string, args: Record<string, unknown>): FakeReply {
  return { toolCalls: [{ name, arguments: args }] };
}
