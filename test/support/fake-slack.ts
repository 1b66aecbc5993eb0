// A fake Slack Web API for tests: plain node:http on 127.0.0.1 answering what reson's Slack
// channel calls through @slack/web-api (auth.test, chat.postMessage, chat.postEphemeral,
// chat.update, and conversations.history / conversations.replies over what was posted, with
// message metadata) as Slack does: POST /api/<method>, a form or JSON body, the bot token as a
// bearer, {"ok": true, …} or {"ok": false, "error": "invalid_auth"}. And signed Events API
// requests, as Slack would send them to the app's request URL. With an app-level token,
// apps.connections.open hands out the URL of a fake Socket Mode server (fake-slack-socket.ts).
// Unfurling as Slack does it for an app's chat.postMessage: a link to media (an image) is fetched
// unless `unfurl_media` is false, any other link only when `unfurl_links` is true; `unfurled`
// lists the links fetched.
import { createHmac } from "node:crypto";
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";

export const FAKE_SLACK_BOT = "UBOT0001";

export interface SlackPost {
  method: string;
  channel: string;
  text: string;
  thread_ts?: string;
  user?: string;
  ts?: string;
  blocks?: { type: string; elements?: { value: string; text: { text: string } }[] }[];
  metadata?: { event_type: string; event_payload: Record<string, unknown> };
}

export interface FakeSlack {
  apiUrl: string;
  readonly posts: SlackPost[];
  /** Every Web API method called, in order. */
  readonly calls: string[];
  /**
   * The next `count` chat.postMessage calls are posted (they appear in `posts`) but never
   * answered, as when the sender dies before it hears back.
   */
  holdPosts(count: number): void;
  /**
   * Rate limiting: the next chat.postMessage is refused with HTTP 429 and `Retry-After: seconds`,
   * and so is every one until that wait is over (each counted in `rateLimited`).
   */
  rateLimitPosts(seconds: number): void;
  /**
   * The next auth.test calls are answered, one each, with these HTTP statuses (429 with
   * `Retry-After: 1`, or a 5xx as when Slack is down).
   */
  failAuthTests(...statuses: number[]): void;
  /** The next apps.connections.open calls are answered, one each, with these HTTP statuses. */
  failConnectionsOpen(...statuses: number[]): void;
  readonly rateLimited: number;
  /** Links Slack fetched to unfurl them, in order. */
  readonly unfurled: string[];
  waitForPost(match: (post: SlackPost) => boolean, timeoutMs?: number): Promise<SlackPost>;
  close(): Promise<void>;
}

async function readBody(req: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString("utf8");
  if (String(req.headers["content-type"]).includes("json")) return text ? JSON.parse(text) : {};
  const out: Record<string, unknown> = {};
  for (const [key, value] of new URLSearchParams(text)) {
    out[key] = key === "blocks" || key === "metadata" ? JSON.parse(value) : value;
  }
  return out;
}

export async function startFakeSlack(options: {
  botToken: string;
  /** The scopes the bot token has; without a history scope the look-ups are refused (missing_scope). */
  scopes?: string[];
  /** The app-level token (xapp-…) apps.connections.open takes, and the socket URL it returns. */
  socket?: { appToken: string; url: string };
}): Promise<FakeSlack> {
  const scopes = options.scopes ?? ["chat:write", "channels:history", "groups:history", "im:history"];
  const posts: SlackPost[] = [];
  const calls: string[] = [];
  let holding = 0;
  let limitArmed: number | undefined;
  const authFailures: number[] = [];
  const openFailures: number[] = [];
  let limitedUntil = 0;
  let rateLimited = 0;
  const unfurled: string[] = [];
  const unfurl = async (body: Record<string, unknown>) => {
    for (const link of String(body.text ?? "").match(/https?:\/\/[^\s<>|"]+/g) ?? []) {
      const media = /\.(png|jpe?g|gif|webp)$/i.test(new URL(link).pathname);
      if (media ? String(body.unfurl_media) === "false" : String(body.unfurl_links) !== "true") continue;
      unfurled.push(link);
      await fetch(link, { signal: AbortSignal.timeout(5_000) }).catch(() => undefined);
    }
  };
  const waiters = new Set<() => void>();
  // Message timestamps as Slack's: seconds of the clock, made unique.
  let lastTs = 0;
  const nextTs = () => {
    lastTs = Math.max(lastTs + 1, Math.floor(Date.now() / 1000) * 1_000_000);
    return `${Math.floor(lastTs / 1_000_000)}.${String(lastTs % 1_000_000).padStart(6, "0")}`;
  };
  const server = createServer(async (req, res) => {
    const method = /^\/api\/([\w.]+)$/.exec(req.url ?? "")?.[1] ?? "";
    const body = await readBody(req);
    const reply = (value: object) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify(value));
    };
    if (method === "apps.connections.open") {
      calls.push(method);
      const failure = openFailures.shift();
      if (failure !== undefined) {
        res.writeHead(failure, failure === 429 ? { "retry-after": "1" } : {});
        return res.end();
      }
      return reply(
        options.socket && req.headers.authorization === `Bearer ${options.socket.appToken}`
          ? { ok: true, url: options.socket.url }
          : { ok: false, error: "invalid_auth" },
      );
    }
    if (req.headers.authorization !== `Bearer ${options.botToken}`)
      return reply({ ok: false, error: "invalid_auth" });
    calls.push(method);
    if (method === "conversations.history" || method === "conversations.replies") {
      const channel = String(body.channel ?? "");
      const needed = channel.startsWith("D") ? "im:history" : "channels:history";
      if (!scopes.includes(needed))
        return reply({ ok: false, error: "missing_scope", needed, provided: scopes.join(",") });
      const oldest = Number(body.oldest ?? 0);
      const inThread = method === "conversations.replies" ? String(body.ts ?? "") : undefined;
      const messages = posts
        .filter(
          (p) =>
            p.method === "chat.postMessage" &&
            p.channel === channel &&
            Number(p.ts) >= oldest &&
            (inThread === undefined || p.thread_ts === inThread),
        )
        .map((p) => ({
          type: "message",
          user: FAKE_SLACK_BOT,
          text: p.text,
          ts: p.ts,
          ...(p.thread_ts ? { thread_ts: p.thread_ts } : {}),
          // Slack leaves metadata out unless asked for it.
          ...(p.metadata && String(body.include_all_metadata) === "true" ? { metadata: p.metadata } : {}),
        }));
      return reply({ ok: true, messages, has_more: false });
    }
    if (method === "auth.test" && authFailures.length > 0) {
      const status = authFailures.shift()!;
      res.writeHead(status, status === 429 ? { "retry-after": "1" } : {});
      return res.end();
    }
    if (method === "auth.test")
      return reply({ ok: true, user_id: FAKE_SLACK_BOT, team_id: "T1", user: "reson" });
    if (method === "chat.postMessage") {
      if (limitArmed !== undefined) {
        limitedUntil = Date.now() + limitArmed * 1000;
        limitArmed = undefined;
      }
      if (Date.now() < limitedUntil) {
        rateLimited++;
        res.writeHead(429, { "retry-after": String(Math.ceil((limitedUntil - Date.now()) / 1000)) });
        return res.end();
      }
    }
    if (method === "chat.postMessage") await unfurl(body);
    if (["chat.postMessage", "chat.postEphemeral", "chat.update"].includes(method)) {
      const messageTs = nextTs();
      posts.push({
        method,
        ...(body as Omit<SlackPost, "method">),
        ...(method === "chat.postMessage" ? { ts: messageTs } : {}),
      });
      for (const wake of waiters) wake();
      if (method === "chat.postMessage" && holding > 0) {
        holding--;
        return;
      }
      return reply({ ok: true, channel: body.channel, ts: messageTs });
    }
    return reply({ ok: false, error: "unknown_method" });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    apiUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/`,
    posts,
    calls,
    rateLimitPosts(seconds) {
      limitArmed = seconds;
    },
    failAuthTests(...statuses) {
      authFailures.push(...statuses);
    },
    failConnectionsOpen(...statuses) {
      openFailures.push(...statuses);
    },
    get rateLimited() {
      return rateLimited;
    },
    unfurled,
    holdPosts(count) {
      holding = count;
    },
    waitForPost(match, timeoutMs = 30_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const found = posts.find(match);
          if (!found) return;
          cleanup();
          resolve(found);
        };
        const timer = setTimeout(() => {
          cleanup();
          reject(new Error(`no matching Slack post within ${timeoutMs} ms; posts: ${JSON.stringify(posts)}`));
        }, timeoutMs);
        const cleanup = () => {
          clearTimeout(timer);
          waiters.delete(check);
        };
        waiters.add(check);
        check();
      });
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Headers of a request signed as Slack signs them (v0, HMAC-SHA256 of "v0:<ts>:<body>"). */
export function slackSignature(secret: string, body: string, timestampS = Math.floor(Date.now() / 1000)) {
  const signature = `v0=${createHmac("sha256", secret).update(`v0:${timestampS}:${body}`).digest("hex")}`;
  return { "x-slack-request-timestamp": String(timestampS), "x-slack-signature": signature };
}
