// The channel core inside `reson serve`: every adapter's deliveries are stored before they are
// acknowledged, then each stored message is taken through its states by conditional updates in
// the store (so any number of serve processes may share the work, and a restart picks up where a
// crash left off): received (message-decision.ts decides what it starts), queued (its run is
// followed, with "typing…" and its prompts offered: button-presses.ts), reply and sending (its
// answer goes back to the chat and thread it came from: answer-sender.ts).
import { ResonError, toResonError } from "../core/errors.js";
import { ulid } from "../core/ids.js";
import type { RunService } from "../server/index.js";
import type { InboundRecord, Store } from "../store/index.js";
import { AnswerSender } from "./answer-sender.js";
import { ButtonPresses } from "./button-presses.js";
import type { ChannelSetup } from "./channel-setup.js";
import { LiveReporter } from "./live-reports.js";
import { MessageDecision, unreadFilesNotice } from "./message-decision.js";
import { runAnswer, startedByOwner } from "./run-answer.js";
import type { ChannelLive, ChannelLog, InboundSink, PressSink } from "./types.js";

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
  /**
   * What of a message's text is kept: every value reson masks elsewhere as its placeholder
   * (serve's task-masking.ts), so a secret pasted into a chat is never stored, run or sent on raw.
   */
  maskText?: (text: string) => Promise<string>;
}

/** How often "typing…" is sent again while a run works (Telegram's lasts about 5 s). */
const TYPING_EVERY_MS = 4000;
/** How often the channels' states are looked at for `reson channel status` (written on a change). */
const LIVE_CHECK_MS = 1000;
const DONE: ReadonlySet<string> = new Set(["completed", "failed", "cancelled"]);

export class ChannelHub {
  readonly #options: ChannelHubOptions;
  readonly #byName = new Map<string, ChannelSetup>();
  readonly #stop = new AbortController();
  readonly #typingAt = new Map<string, number>();
  #timer: NodeJS.Timeout | undefined;
  #liveTimer: NodeJS.Timeout | undefined;
  #reporting: Promise<void> | undefined;
  readonly #reporter: LiveReporter;
  #ticking: Promise<void> | undefined;
  #again = false;
  /** Each chat's messages (and each channel's stored presses) being taken now, by key. */
  readonly #working = new Map<string, Promise<void>>();
  #started: Promise<unknown>[] = [];
  /** Channels whose start failed (the platform refused the token): why, for GET /channels. */
  readonly #stopped = new Map<string, ChannelLive>();
  readonly #presses: ButtonPresses;
  readonly #decision: MessageDecision;
  readonly #sender: AnswerSender;

  constructor(options: ChannelHubOptions) {
    this.#options = options;
    const signal = this.#stop.signal;
    this.#presses = new ButtonPresses({ ...options, signal });
    this.#decision = new MessageDecision({
      ...options,
      typing: (record, setup) => this.#typing(record, setup, true),
    });
    this.#sender = new AnswerSender({ ...options, signal });
    for (const setup of options.channels) this.#byName.set(setup.adapter.name, setup);
    this.#reporter = new LiveReporter(options.store);
  }

  get channels(): readonly ChannelSetup[] {
    return this.#options.channels;
  }

  /** Stores a delivery once per dedupe key, then wakes the hub; adapters acknowledge after it. */
  readonly sink = (channel: string): InboundSink => {
    return async (given) => {
      const { maskText } = this.#options;
      const delivery = maskText
        ? { ...given, message: { ...given.message, text: await maskText(given.message.text) } }
        : given;
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
          this.#stopped.set(adapter.name, {
            state: "stopped",
            reason: failure.message,
            ...(failure.hint ? { hint: failure.hint } : {}),
          });
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
    await this.#reporter.forgetStale([...this.#byName.keys()]).catch(() => {});
    this.#report();
    this.#liveTimer = setInterval(() => this.#report(), LIVE_CHECK_MS);
    this.#liveTimer.unref();
  }

  /** Writes how the channels stand to the store, for `reson channel status` in another process. */
  #report(): void {
    if (this.#reporting || this.#stop.signal.aborted) return;
    this.#reporting = this.#reporter
      .report(this.live())
      .catch((error: unknown) => {
        const failure = toResonError(error);
        this.#options.log({
          level: "warn",
          message: `channels: could not record their state for reson channel status: ${failure.message}`,
          code: failure.code,
        });
      })
      .finally(() => {
        this.#reporting = undefined;
      });
  }

  /** How each channel stands in this serve, by name. */
  live(): Map<string, ChannelLive> {
    return new Map(
      this.#options.channels.map(({ adapter }) => [
        adapter.name,
        this.#stopped.get(adapter.name) ?? adapter.describe(),
      ]),
    );
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
    if (this.#liveTimer) clearInterval(this.#liveTimer);
    await Promise.allSettled([...this.#started, this.#ticking, this.#reporting]);
    await Promise.allSettled([...this.#working.values()]);
    await this.#reporter.withdraw().catch(() => {});
  }

  #schedule(): void {
    this.#timer = setInterval(() => this.wake(), this.#options.pollMs ?? 500);
    this.#timer.unref();
  }

  /**
   * Starts taking each chat's stored messages as far as they go, in order within the chat, and
   * each chat (and each channel's stored presses) on its own: a platform that never answers one
   * send holds up that chat alone, not every other chat's answers and runs.
   */
  async #tick(): Promise<void> {
    for (const setup of this.#options.channels)
      this.#inFlight(`presses\u0000${setup.adapter.name}`, () => this.#presses.applyStored(setup));
    const byChat = new Map<string, InboundRecord[]>();
    for (const record of await this.#options.store.channels.listOpen()) {
      const chat = `chat\u0000${record.channel}\u0000${record.chatKey}`;
      const records = byChat.get(chat);
      if (records) records.push(record);
      else byChat.set(chat, [record]);
    }
    for (const [chat, records] of byChat)
      this.#inFlight(chat, async () => {
        for (const record of records) {
          if (this.#stop.signal.aborted) return;
          const setup = this.#byName.get(record.channel);
          if (setup) await this.#advanceLogged(record, setup);
        }
      });
  }

  /** Runs `work` unless work under the same key still runs (the next tick looks again). */
  #inFlight(key: string, work: () => Promise<void>): void {
    if (this.#working.has(key) || this.#stop.signal.aborted) return;
    const done = work()
      .catch((error: unknown) => {
        const failure = toResonError(error);
        this.#options.log({ level: "warn", message: `channels: ${failure.message}`, code: failure.code });
      })
      .finally(() => this.#working.delete(key));
    this.#working.set(key, done);
  }

  async #advanceLogged(record: InboundRecord, setup: ChannelSetup): Promise<void> {
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
        return this.#decision.decide(record, setup);
      case "queued":
        return this.#follow(record, setup);
      case "reply":
        return this.#sender.send(record, setup, false);
      case "sending":
        return this.#sender.send(record, setup, true);
      default:
        return false;
    }
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
    const answer = await runAnswer(store, request, {
      owner: startedByOwner(request),
      direct: record.message.envelope.chatType === "direct",
    });
    const files = record.message.unreadFiles ?? [];
    const reply =
      files.length > 0 ? `(${unreadFilesNotice(files)} This answers your text alone.)\n\n${answer}` : answer;
    return store.channels.transition(record.id, "queued", "reply", { reply });
  }

  async #typing(record: InboundRecord, setup: ChannelSetup, now: boolean): Promise<void> {
    if (!setup.adapter.typing) return;
    const last = this.#typingAt.get(record.id) ?? 0;
    if (!now && Date.now() - last < TYPING_EVERY_MS) return;
    this.#typingAt.set(record.id, Date.now());
    await setup.adapter.typing(record.message.target, this.#stop.signal).catch(() => {});
  }
}
