// What a stored message starts, decided once per message: who may talk decides (a run, a pairing
// code, nothing); an authorised sender's commands (/new, /stop) are carried out and answered; a
// free question a run of the chat waits on takes the message as its answer; anything else is
// queued as a run of the chat's session under an idempotency key made from the message, so a
// message never starts two runs.
import type { RunService } from "../server/index.js";
import type { InboundRecord, PairingRecord, Store } from "../store/index.js";
import {
  decideAccess,
  EXPIRED_PAIRING_KEPT_MS,
  MAX_PENDING_PAIRINGS,
  PAIRING_ANSWER_AGAIN_MS,
  PAIRING_CODE_TTL_MS,
  pairingCode,
  pairingToldKey,
} from "./access.js";
import type { ChannelSetup } from "./channel-setup.js";
import { chatCommand } from "./chat-commands.js";
import type { ChannelLog } from "./types.js";

export interface MessageDecisionOptions {
  store: Store;
  runs: RunService;
  log: ChannelLog;
  /** Shows "typing…" in the chat of a message whose run was just queued. */
  typing: (record: InboundRecord, setup: ChannelSetup) => Promise<void>;
}

function parseTold(value: string): { what: string; at: number } | undefined {
  try {
    const parsed = JSON.parse(value) as { what?: unknown; at?: unknown };
    return typeof parsed.what === "string" && typeof parsed.at === "number"
      ? { what: parsed.what, at: parsed.at }
      : undefined;
  } catch {
    return undefined;
  }
}

export class MessageDecision {
  readonly #options: MessageDecisionOptions;

  constructor(options: MessageDecisionOptions) {
    this.#options = options;
  }

  async decide(record: InboundRecord, setup: ChannelSetup): Promise<boolean> {
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
    if (text.trim() === "" && (record.message.unreadFiles?.length ?? 0) > 0)
      return channels.transition(record.id, "received", "reply", {
        reply: `${unreadFilesNotice(record.message.unreadFiles!)} Write what you need as text.`,
        note: "files_only",
      });
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
    if (moved) await this.#options.typing(record, setup);
    return moved;
  }

  /** An unknown sender: their pending code (or a new one), never a run. */
  async #pair(record: InboundRecord, pairing: Awaited<ReturnType<Store["channels"]["pairingOf"]>>) {
    const channels = this.#options.store.channels;
    const { envelope } = record.message;
    const sender = envelope.senderId!;
    const now = Date.now();
    // Strangers' codes would otherwise pile up for good: the long-expired ones go, and what
    // their senders were told with them.
    for (const expired of await channels.deleteExpiredPairings(record.channel, now - EXPIRED_PAIRING_KEPT_MS))
      await channels.deleteState(record.channel, pairingToldKey(expired));
    let code = pairing?.status === "pending" && (pairing.expiresAt ?? 0) > now ? pairing.code : null;
    if (!code) {
      const pending = (await channels.listPairings(record.channel)).filter(
        (p) => p.status === "pending" && (p.expiresAt ?? 0) > now,
      );
      if (pending.length >= MAX_PENDING_PAIRINGS) return this.#pairingFull(record, sender, pending, now);
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
    // Told once per code, and again only after a while (they may have lost it): a stranger writing
    // on and on cannot make the bot answer every message, or use it to flood a chat.
    if (!(await this.#tellOnce(record.channel, sender, code, now)))
      return channels.transition(record.id, "received", "ignored", { note: "pairing_told" });
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

  /**
   * Every pairing slot is taken: the stranger is told so (once, as a code is), and the owner is
   * told who holds the slots and how to deny them, since senders who only ever write to hold a
   * code would otherwise keep real strangers out without anyone knowing.
   */
  async #pairingFull(record: InboundRecord, sender: string, pending: PairingRecord[], now: number) {
    const channels = this.#options.store.channels;
    if (!(await this.#tellOnce(record.channel, sender, "full", now)))
      return channels.transition(record.id, "received", "ignored", { note: "pairing_full" });
    const holders = pending.map(
      (p) => `${p.senderId} (code ${p.code}, since ${new Date(p.createdAt).toISOString()})`,
    );
    this.#options.log({
      level: "warn",
      message: `channel ${record.channel}: sender ${sender} asked to pair, but ${pending.length} codes are pending: ${holders.join(", ")}; deny the ones you do not know with: reson channel pair deny ${record.channel} <code>`,
      channel: record.channel,
      sender,
    });
    const freeAt = Math.min(...pending.map((p) => p.expiresAt ?? now));
    const minutes = Math.max(1, Math.ceil((freeAt - now) / 60_000));
    return channels.transition(record.id, "received", "reply", {
      reply:
        "This agent has too many pairing requests waiting and cannot give you a code now. " +
        `Try again in ${minutes} minute${minutes === 1 ? "" : "s"}, or ask its owner another way.`,
      note: "pairing_full",
    });
  }

  /**
   * Whether to answer a stranger with `what` (their code) now: yes the first time, when it
   * changed, and once PAIRING_ANSWER_AGAIN_MS passed since the last answer. Of processes taking
   * the same sender's messages at once, one answers.
   */
  async #tellOnce(channel: string, sender: string, what: string, now: number): Promise<boolean> {
    const channels = this.#options.store.channels;
    const key = pairingToldKey(sender);
    const told = await channels.getState(channel, key);
    const value = JSON.stringify({ what, at: now });
    if (told === undefined) return channels.claimState(channel, key, value);
    const last = parseTold(told);
    if (last && last.what === what && now - last.at < PAIRING_ANSWER_AGAIN_MS) return false;
    return channels.replaceState(channel, key, told, value);
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
}

/** What is said of files sent with a message: reson reads only the text of chat messages. */
export function unreadFilesNotice(files: readonly string[]): string {
  const named = files.length === 1 ? `${files[0]} was` : `${files.length} files (${files.join(", ")}) were`;
  return `I cannot read files sent in the chat yet: ${named} not read.`;
}
