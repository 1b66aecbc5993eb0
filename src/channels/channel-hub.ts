// The channel core inside `reson serve`: every adapter's deliveries are stored before they are
// acknowledged, then each stored message is taken through its states by conditional updates in
// the store (so any number of serve processes may share the work, and a restart picks up where a
// crash left off): who may talk decides (a run, a pairing code, nothing), the run is queued
// under an idempotency key made from the message (a message never starts two runs), its answer
// goes back to the chat and thread it came from, split at the platform's limit, with a typing
// indicator while the run works.
import { ResonError, toResonError } from "../core/errors.js";
import { ulid } from "../core/ids.js";
import type { RunService } from "../server/index.js";
import type { InboundRecord, Store } from "../store/index.js";
import { decideAccess, MAX_PENDING_PAIRINGS, PAIRING_CODE_TTL_MS, pairingCode } from "./access.js";
import { ButtonPresses } from "./button-presses.js";
import type { ChannelSetup } from "./channel-setup.js";
import { chatCommand } from "./chat-commands.js";
import { runAnswer } from "./run-answer.js";
import { splitForPlatform } from "./split-text.js";
import type { ChannelLog, InboundSink, PressSink } from "./types.js";

export type { ChannelSetup } from "./channel-setup.js";

export interface ChannelHubOptions {
  store: Store;
  runs: RunService;
  channels: readonly ChannelSetup[];
  log: ChannelLog;
  /** How often stored messages are looked at besides the wake-ups (default 500 ms). */
  pollMs?: number;
  /** A claim to send that is older than this was a crash: it is taken over (default 30 s). */
  sendStaleMs?: number;
}

/** How often "typing…" is sent again while a run works (Telegram's lasts about 5 s). */
const TYPING_EVERY_MS = 4000;
const DONE: ReadonlySet<string> = new Set(["completed", "failed", "cancelled"]);

export class ChannelHub {
  readonly #options: ChannelHubOptions;
  readonly #byName = new Map<string, ChannelSetup>();
  readonly #stop = new AbortController();
  readonly #typingAt = new Map<string, number>();
  /** Answers whose sending failed for now: not tried again before then (this process only). */
  readonly #retryAt = new Map<string, { at: number; failures: number }>();
  #timer: NodeJS.Timeout | undefined;
  #ticking: Promise<void> | undefined;
  #again = false;
  #started: Promise<unknown>[] = [];
  readonly #presses: ButtonPresses;

  constructor(options: ChannelHubOptions) {
    this.#options = options;
    this.#presses = new ButtonPresses({ ...options, signal: this.#stop.signal });
    for (const setup of options.channels) this.#byName.set(setup.adapter.name, setup);
  }

  get channels(): readonly ChannelSetup[] {
    return this.#options.channels;
  }

  /** Stores a delivery once per dedupe key, then wakes the hub; adapters acknowledge after it. */
  readonly sink = (channel: string): InboundSink => {
    return async (delivery) => {
      const stored = await this.#options.store.channels.receive({ id: ulid(), channel, ...delivery });
      if (stored.created) this.wake();
      return stored;
    };
  };

  /** Takes a button pressed under a prompt in the chat it was offered in (stored before it is acknowledged). */
  readonly press = (channel: string): PressSink => {
    return async (press) => {
      const setup = this.#byName.get(channel);
      if (!setup) return;
      await this.#presses.take(setup, press);
      this.wake();
    };
  };

  /** The HTTP routes of the adapters that take deliveries over HTTP (webhooks). */
  routes() {
    return this.#options.channels.flatMap(
      (setup) => setup.adapter.routes?.(this.sink(setup.adapter.name), this.press(setup.adapter.name)) ?? [],
    );
  }

  async start(): Promise<void> {
    const signal = this.#stop.signal;
    for (const { adapter } of this.#options.channels) {
      this.#started.push(
        adapter.start(this.sink(adapter.name), signal, this.press(adapter.name)).catch((error: unknown) => {
          if (signal.aborted) return;
          const failure = toResonError(error);
          this.#options.log({
            level: "error",
            message: `channel ${adapter.name} stopped taking messages: ${failure.message}`,
            channel: adapter.name,
            code: failure.code,
            ...(failure.hint ? { hint: failure.hint } : {}),
          });
        }),
      );
    }
    this.#schedule();
    this.wake();
  }

  /** Looks at the stored messages now (a delivery came, a run may have ended). */
  wake(): void {
    if (this.#stop.signal.aborted) return;
    if (this.#ticking) {
      this.#again = true;
      return;
    }
    this.#ticking = this.#tick()
      .catch((error: unknown) => {
        const failure = toResonError(error);
        this.#options.log({ level: "warn", message: `channels: ${failure.message}`, code: failure.code });
      })
      .finally(() => {
        this.#ticking = undefined;
        if (this.#again) {
          this.#again = false;
          this.wake();
        }
      });
  }

  async stop(): Promise<void> {
    this.#stop.abort(new ResonError("host_stopping", "reson serve is stopping."));
    if (this.#timer) clearInterval(this.#timer);
    await Promise.allSettled([...this.#started, this.#ticking]);
  }

  #schedule(): void {
    this.#timer = setInterval(() => this.wake(), this.#options.pollMs ?? 500);
    this.#timer.unref();
  }

  async #tick(): Promise<void> {
    for (const setup of this.#options.channels) await this.#presses.applyStored(setup);
    const open = await this.#options.store.channels.listOpen();
    for (const record of open) {
      if (this.#stop.signal.aborted) return;
      const setup = this.#byName.get(record.channel);
      if (!setup) continue;
      try {
        await this.#advance(record, setup);
      } catch (error) {
        const failure = toResonError(error);
        this.#options.log({
          level: "warn",
          message: `channel ${record.channel}: message ${record.id}: ${failure.message}`,
          channel: record.channel,
          inbound: record.id,
          code: failure.code,
        });
      }
    }
  }

  /** Takes a message as far as it can go now. */
  async #advance(first: InboundRecord, setup: ChannelSetup): Promise<void> {
    let record: InboundRecord | undefined = first;
    for (let moves = 0; record && moves < 4; moves++) {
      const moved = await this.#step(record, setup);
      if (!moved) return;
      record = await this.#options.store.channels.getInbound(record.id);
    }
  }

  async #step(record: InboundRecord, setup: ChannelSetup): Promise<boolean> {
    switch (record.status) {
      case "received":
        return this.#decide(record, setup);
      case "queued":
        return this.#follow(record, setup);
      case "reply":
        return this.#send(record, setup, false);
      case "sending":
        return this.#send(record, setup, true);
      default:
        return false;
    }
  }

  async #decide(record: InboundRecord, setup: ChannelSetup): Promise<boolean> {
    const { store } = this.#options;
    const channels = store.channels;
    const { envelope, text } = record.message;
    const pairing = envelope.senderId
      ? await channels.pairingOf(record.channel, envelope.senderId)
      : undefined;
    const access = decideAccess(setup.access, envelope, pairing);
    if (access.kind === "ignore")
      return channels.transition(record.id, "received", "ignored", { note: access.note });
    if (access.kind === "pair") return this.#pair(record, pairing);
    const command = chatCommand(text);
    if (command && !access.mayCommand)
      return channels.transition(record.id, "received", "reply", {
        reply: `Only the owner or allowed people can use /${command} here.`,
        note: "command_refused",
      });
    if (command === "new") {
      await channels.unbindSession(record.channel, record.chatKey);
      return channels.transition(record.id, "received", "reply", {
        reply: "Starting a new conversation: your next message begins a new session.",
        note: "command_new",
      });
    }
    if (command === "stop") {
      const stopped = await this.#stopChatRuns(record);
      return channels.transition(record.id, "received", "reply", {
        reply: stopped > 0 ? "Stopping the current run." : "Nothing is running here.",
        note: "command_stop",
      });
    }
    if (access.mayCommand && (await this.#answerOpenQuestion(record)))
      return channels.transition(record.id, "received", "ignored", { note: "question_answered" });
    const sessionId = await this.#sessionOf(record, setup);
    const sender = envelope.senderId ?? "unknown";
    const where = envelope.chatType === "direct" ? "" : ` in ${envelope.chatType} ${envelope.chatId ?? ""}`;
    const { run } = await this.#options.runs.startRun({
      task: text,
      sessionId,
      spec: {
        ...setup.spec,
        channelMessage: {
          envelope: { ...envelope, roleLabel: access.standing },
          untrusted: access.standing !== "owner",
          origin: `${record.channel} user ${sender}${envelope.senderUsername ? ` (@${envelope.senderUsername})` : ""}${where}`,
          inboundId: record.id,
        },
      },
      policy: "enqueue",
      idempotencyKey: `channel:${record.id}`,
    });
    const moved = await channels.transition(record.id, "received", "queued", { runId: run.id });
    if (moved) await this.#typing(record, setup, true);
    return moved;
  }

  /** An unknown sender: their pending code (or a new one), never a run. */
  async #pair(record: InboundRecord, pairing: Awaited<ReturnType<Store["channels"]["pairingOf"]>>) {
    const channels = this.#options.store.channels;
    const { envelope } = record.message;
    const sender = envelope.senderId!;
    const now = Date.now();
    let code = pairing?.status === "pending" && (pairing.expiresAt ?? 0) > now ? pairing.code : null;
    if (!code) {
      const pending = (await channels.listPairings(record.channel)).filter(
        (p) => p.status === "pending" && (p.expiresAt ?? 0) > now,
      );
      if (pending.length >= MAX_PENDING_PAIRINGS)
        return channels.transition(record.id, "received", "ignored", { note: "pairing_full" });
      await channels.putPairing({
        channel: record.channel,
        senderId: sender,
        senderName: envelope.senderName ?? envelope.senderUsername ?? null,
        code: pairingCode(),
        status: "pending",
        role: "allowed",
        createdAt: now,
        expiresAt: now + PAIRING_CODE_TTL_MS,
        approvedAt: null,
      });
      // Of two processes pairing the same sender at once, both answer with the stored code.
      code = (await channels.pairingOf(record.channel, sender))?.code ?? null;
    }
    if (!code) return channels.transition(record.id, "received", "ignored", { note: "pairing_failed" });
    this.#options.log({
      level: "info",
      message: `channel ${record.channel}: sender ${sender} asked to pair; approve with: reson channel pair approve ${record.channel} ${code}`,
      channel: record.channel,
      sender,
    });
    return channels.transition(record.id, "received", "reply", {
      reply:
        `This agent does not know you yet. Your pairing code is ${code} (valid for one hour).\n` +
        `Ask its owner to run: reson channel pair approve ${record.channel} ${code}`,
      note: "pairing",
    });
  }

  /** The chat's session, made on its first message (or after /new). */
  async #sessionOf(record: InboundRecord, setup: ChannelSetup): Promise<string> {
    const { store, runs } = this.#options;
    const bound = await store.channels.sessionFor(record.channel, record.chatKey);
    if (bound && (await store.sessions.get(bound.sessionId))) return bound.sessionId;
    if (bound) await store.channels.unbindSession(record.channel, record.chatKey);
    const { envelope } = record.message;
    const session = await runs.createSession({
      workspace: setup.spec.workspace,
      title:
        `${record.channel} ${envelope.chatType} ${envelope.chatId ?? ""}${envelope.threadId ? ` thread ${envelope.threadId}` : ""}`.trim(),
      ...(setup.spec.provider ? { provider: setup.spec.provider } : {}),
      ...(setup.spec.model ? { model: setup.spec.model } : {}),
      ...(setup.spec.baseUrl ? { baseUrl: setup.spec.baseUrl } : {}),
    });
    const kept = await store.channels.bindSession({
      channel: record.channel,
      chatKey: record.chatKey,
      sessionId: session.id,
      createdAt: Date.now(),
    });
    return kept.sessionId;
  }

  async #stopChatRuns(record: InboundRecord): Promise<number> {
    const { store } = this.#options;
    const bound = await store.channels.sessionFor(record.channel, record.chatKey);
    if (!bound) return 0;
    const active = (await store.queue.listBySession(bound.sessionId)).filter(
      (run) => run.status === "queued" || run.status === "running",
    );
    for (const run of active) await store.queue.requestCancel(run.id);
    return active.length;
  }

  /** A queued message: its run's answer once it ends, "typing…" while it works. */
  async #follow(record: InboundRecord, setup: ChannelSetup): Promise<boolean> {
    const { store } = this.#options;
    const request = record.runId ? await store.queue.get(record.runId) : undefined;
    if (!request)
      return store.channels.transition(record.id, "queued", "reply", {
        reply: "The run for this message was lost (its record is gone).",
        note: "run_missing",
      });
    if (!DONE.has(request.status)) {
      if (request.status === "running") {
        await this.#typing(record, setup, false);
        await this.#presses.offer(record, setup, request.id);
      }
      return false;
    }
    this.#typingAt.delete(record.id);
    const reply = await runAnswer(store, request);
    return store.channels.transition(record.id, "queued", "reply", { reply });
  }

  /** A free question a run of this chat waits on is answered by the next message of an authorised sender. */
  async #answerOpenQuestion(record: InboundRecord): Promise<boolean> {
    const { store, runs } = this.#options;
    const bound = await store.channels.sessionFor(record.channel, record.chatKey);
    if (!bound) return false;
    const running = (await store.queue.listBySession(bound.sessionId)).filter((r) => r.status === "running");
    for (const run of running) {
      const question = (await store.prompts.listPending(run.id)).find(
        (p) => p.kind === "question" && ((p.payload as { choices?: unknown[] }).choices ?? []).length === 0,
      );
      if (!question) continue;
      const { envelope } = record.message;
      await runs.answerQuestion(run.id, question.id, record.message.text, {
        channel: record.channel,
        ...(envelope.senderId ? { senderId: envelope.senderId } : {}),
        ...(envelope.senderName ? { displayName: envelope.senderName } : {}),
      });
      return true;
    }
    return false;
  }

  async #typing(record: InboundRecord, setup: ChannelSetup, now: boolean): Promise<void> {
    if (!setup.adapter.typing) return;
    const last = this.#typingAt.get(record.id) ?? 0;
    if (!now && Date.now() - last < TYPING_EVERY_MS) return;
    this.#typingAt.set(record.id, Date.now());
    await setup.adapter.typing(record.message.target, this.#stop.signal).catch(() => {});
  }

  /**
   * Claims the reply (or a claim that went stale), sends it in parts, marks it answered. Before
   * each part the attempt is recorded in the store as sending that part, and after it as sent:
   * whoever takes over a crashed sender's claim knows which part may have gone out already and
   * lets the adapter check (Slack) or mark it (Telegram's notice, the webhook's stable id).
   */
  async #send(record: InboundRecord, setup: ChannelSetup, takeover: boolean): Promise<boolean> {
    const { store, log } = this.#options;
    const staleMs = this.#options.sendStaleMs ?? 30_000;
    const retry = this.#retryAt.get(record.id);
    if (retry && Date.now() < retry.at) return false;
    const claimed = await store.channels.transition(
      record.id,
      takeover ? "sending" : "reply",
      "sending",
      {},
      takeover ? staleMs : undefined,
    );
    if (!claimed) return false;
    const parts = splitForPlatform(record.reply?.trim() || "(no answer)", setup.adapter.maxMessageChars);
    const progressKey = `send:${record.id}`;
    const before = parseSendProgress(await store.channels.getState(record.channel, progressKey));
    const attemptId = ulid();
    if (before?.trying !== undefined)
      log({
        level: "info",
        message: `channel ${record.channel}: the answer to message ${record.id} was being sent by attempt ${before.attemptId}, which stopped before recording it; checking for a repeat`,
        channel: record.channel,
        inbound: record.id,
      });
    let index = before?.sent ?? 0;
    const maybeSentPart = before?.trying;
    try {
      for (; index < parts.length; index++) {
        const maybeSent = maybeSentPart === index;
        const sinceMs = maybeSent ? (before?.sinceMs ?? Date.now()) : Date.now();
        await this.#recordProgress(record, { attemptId, sent: index, trying: index, sinceMs });
        await setup.adapter.send(record.message.target, parts[index]!, this.#stop.signal, {
          id: `${record.id}.${index}`,
          attemptId,
          maybeSent,
          ...(maybeSent ? { sinceMs } : {}),
        });
        await this.#recordProgress(record, { attemptId, sent: index + 1 });
        // A long answer keeps its claim fresh, so nobody takes over a sender that still works.
        if (index + 1 < parts.length) await store.channels.transition(record.id, "sending", "sending");
      }
    } catch (error) {
      const failure = toResonError(error);
      const permanent = failure.code === "channel_send_refused";
      // Not sent as far as anyone knows, unless the platform may have taken it (a timeout), or an
      // earlier attempt may have: then the next attempt checks again.
      const uncertain = failure.details?.maybeDelivered === true || maybeSentPart === index;
      await this.#recordProgress(record, {
        attemptId,
        sent: index,
        ...(uncertain ? { trying: index, sinceMs: before?.sinceMs ?? Date.now() } : {}),
      }).catch(() => {});
      log({
        level: "warn",
        message: `channel ${record.channel}: the answer to message ${record.id} was not sent: ${failure.message}`,
        channel: record.channel,
        inbound: record.id,
        ...(permanent ? {} : { retry: true }),
      });
      if (permanent)
        return store.channels.transition(record.id, "sending", "answered", {
          note: `send_refused: ${failure.message}`,
        });
      // Backing off, doubling up to a minute: a platform that is down is not hammered.
      const failures = (retry?.failures ?? 0) + 1;
      this.#retryAt.set(record.id, {
        at: Date.now() + Math.min(60_000, 1000 * 2 ** (failures - 1)),
        failures,
      });
      await store.channels.transition(record.id, "sending", "reply");
      return false;
    }
    this.#retryAt.delete(record.id);
    return store.channels.transition(record.id, "sending", "answered");
  }

  async #recordProgress(record: InboundRecord, progress: SendProgress): Promise<void> {
    await this.#options.store.channels.setState(
      record.channel,
      `send:${record.id}`,
      JSON.stringify(progress),
    );
  }
}

/** How far the sending of an answer got, kept in channel_state under "send:<inbound id>". */
interface SendProgress {
  attemptId: string;
  /** Parts confirmed sent. */
  sent: number;
  /** The part an attempt began to send and did not record as sent. */
  trying?: number;
  /** When the first attempt at that part began. */
  sinceMs?: number;
}

function parseSendProgress(value: string | undefined): SendProgress | undefined {
  if (!value) return undefined;
  try {
    const parsed = JSON.parse(value) as Partial<SendProgress>;
    if (typeof parsed.attemptId !== "string" || typeof parsed.sent !== "number") return undefined;
    return {
      attemptId: parsed.attemptId,
      sent: parsed.sent,
      ...(typeof parsed.trying === "number" ? { trying: parsed.trying } : {}),
      ...(typeof parsed.sinceMs === "number" ? { sinceMs: parsed.sinceMs } : {}),
    };
  } catch {
    return undefined;
  }
}
