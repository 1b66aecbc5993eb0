// A run's approvals and questions in the chat, and the buttons pressed under them. Each pending
// prompt is offered once (by one process) in the chat its run came from. A press by an authorised
// sender is stored under "press:<prompt id>" before the platform hears of it, then given to the
// run with who pressed it: a crash in between leaves a stored press that the next tick (of any
// serve) applies, a redelivered press finds the stored one, and the prompt's own compare-and-swap
// lets an answer land once, so no press is lost or applied twice.
import { toResonError } from "../core/errors.js";
import type { AnsweredBy } from "../core/events.js";
import type { RunService } from "../server/index.js";
import type { InboundRecord, RunPromptRecord, Store } from "../store/index.js";
import { answeredByOf } from "../worker/index.js";
import { decideAccess } from "./access.js";
import type { ChannelSetup } from "./channel-setup.js";
import { type PressAnswer, parsePressData, pressAnswer, promptMessage } from "./chat-prompts.js";
import type { ButtonPress, ChannelLog } from "./types.js";

export interface ButtonPressesOptions {
  store: Store;
  runs: RunService;
  log: ChannelLog;
  signal: AbortSignal;
}

/** A press as stored in channel_state under "press:<prompt id>" (the first one for the prompt). */
interface StoredPress {
  /** pressed: stored, not yet given to the run; applied: the run has it; closed: too late. */
  status: "pressed" | "applied" | "closed";
  runId: string;
  answer: PressAnswer;
  answeredBy: AnsweredBy;
  press: ButtonPress;
}

const PRESS_PREFIX = "press:";
const TOO_LATE = "This was already answered or has timed out.";
const NOT_OURS = "This button is not one of this agent's.";
const OWNER_ONLY = "Only an owner can allow this: the run read untrusted content.";

export class ButtonPresses {
  readonly #options: ButtonPressesOptions;
  /** Presses this process is giving to their runs now (the sink and a tick may meet on one). */
  readonly #applying = new Set<string>();

  constructor(options: ButtonPressesOptions) {
    this.#options = options;
  }

  /** Each pending approval or question of the run, sent once (by one process) to the chat. */
  async offer(record: InboundRecord, setup: ChannelSetup, runId: string): Promise<void> {
    const { store, signal } = this.#options;
    for (const prompt of await store.prompts.listPending(runId)) {
      if (!(await store.channels.claimState(record.channel, `prompt:${prompt.id}`, record.id))) continue;
      const { text, buttons } = promptMessage(prompt);
      if (buttons.length > 0 && setup.adapter.ask)
        await setup.adapter.ask(record.message.target, text, buttons, signal);
      else await setup.adapter.send(record.message.target, text, signal);
    }
  }

  /** A press from the platform: refused, stored (then acknowledged and applied), or a repeat. */
  async take(setup: ChannelSetup, press: ButtonPress): Promise<void> {
    const { store, log, signal } = this.#options;
    const channel = setup.adapter.name;
    const checked = await this.#check(setup, press).catch((error: unknown) => {
      const failure = toResonError(error);
      return { refusal: `That did not work: ${failure.message}` };
    });
    if ("refusal" in checked) {
      await setup.adapter.settlePress?.(press, checked.refusal, undefined, signal).catch(() => {});
      return;
    }
    const { pending, runId, answer, answeredBy } = checked;
    const stored: StoredPress = { status: "pressed", runId, answer, answeredBy, press };
    const key = `${PRESS_PREFIX}${answer.promptId}`;
    const value = JSON.stringify(stored);
    if (!pending || !(await store.channels.claimState(channel, key, value))) {
      // The same press again (Telegram after a crash, Slack's retry): it is stored, and applied
      // by whoever holds it or by the next tick. Another press of the prompt came too late.
      const earlier = parseStoredPress(await store.channels.getState(channel, key));
      if (earlier?.press.id === press.id) return;
      await setup.adapter.settlePress?.(press, TOO_LATE, undefined, signal).catch(() => {});
      return;
    }
    // Held from here: this process's ticks leave the press to this call.
    this.#applying.add(key);
    try {
      await setup.adapter.acknowledgePress?.(press, `Done: ${answer.words}.`, signal).catch(() => {});
      await this.#give(setup, key, value);
    } catch (error) {
      const failure = toResonError(error);
      log({
        level: "warn",
        message: `channel ${channel}: a press on prompt ${answer.promptId} is stored and not yet given to its run (${failure.message}); trying again`,
        channel,
        code: failure.code,
      });
    } finally {
      this.#applying.delete(key);
    }
  }

  /** Presses stored and not given to their runs (their process died in between): given now. */
  async applyStored(setup: ChannelSetup): Promise<void> {
    const channel = setup.adapter.name;
    for (const { key, value } of await this.#options.store.channels.listState(channel, PRESS_PREFIX)) {
      if (this.#options.signal.aborted) return;
      if (parseStoredPress(value)?.status !== "pressed" || this.#applying.has(key)) continue;
      this.#applying.add(key);
      await this.#give(setup, key, value)
        .catch((error: unknown) => {
          const failure = toResonError(error);
          this.#options.log({
            level: "warn",
            message: `channel ${channel}: the stored press ${key} could not be given to its run: ${failure.message}`,
            channel,
            code: failure.code,
          });
        })
        .finally(() => this.#applying.delete(key));
    }
  }

  /** Whether the press may answer its prompt, and what it answers. */
  async #check(
    setup: ChannelSetup,
    press: ButtonPress,
  ): Promise<
    { refusal: string } | { pending: boolean; runId: string; answer: PressAnswer; answeredBy: AnsweredBy }
  > {
    const { store, log } = this.#options;
    const channel = setup.adapter.name;
    const parsed = parsePressData(press.data);
    if (!parsed) return { refusal: NOT_OURS };
    const offeredIn = await store.channels.getState(channel, `prompt:${parsed.promptId}`);
    const record = offeredIn ? await store.channels.getInbound(offeredIn) : undefined;
    const prompt = await store.prompts.get(parsed.promptId);
    if (!record || !prompt || record.message.target.chatId !== press.chatId) return { refusal: NOT_OURS };
    const pairing = await store.channels.pairingOf(channel, press.senderId);
    const access = decideAccess(
      setup.access,
      {
        receivedAt: Date.now(),
        channel,
        chatType: "direct",
        chatId: press.senderId,
        senderId: press.senderId,
      },
      pairing,
    );
    if (access.kind !== "talk" || !access.mayCommand) {
      log({
        level: "warn",
        message: `channel ${channel}: ${press.senderId} pressed a button of prompt ${prompt.id} and is not allowed to answer it`,
        channel,
        sender: press.senderId,
      });
      return { refusal: "You are not allowed to answer this." };
    }
    const answer = pressAnswer(prompt, parsed.choice);
    if (!answer) return { refusal: NOT_OURS };
    // What the trust rules hold back after untrusted content (a message from someone who is not
    // an owner is such content) is the owner's to allow: else the sender of that message would
    // allow their own run to reach a new host, fill a secret or steer the owner's later runs.
    if (
      answer.kind === "permission" &&
      answer.answer.decision !== "deny" &&
      access.standing !== "owner" &&
      typeof (prompt.payload as { untrustedHold?: unknown }).untrustedHold === "string"
    ) {
      log({
        level: "warn",
        message: `channel ${channel}: ${press.senderId} pressed to allow prompt ${prompt.id}, which only an owner may allow (the run read untrusted content)`,
        channel,
        sender: press.senderId,
      });
      return { refusal: OWNER_ONLY };
    }
    return {
      pending: prompt.status === "pending",
      runId: prompt.traceId,
      answer,
      answeredBy: {
        channel,
        senderId: press.senderId,
        ...(press.senderName ? { displayName: press.senderName } : {}),
      },
    };
  }

  /**
   * Gives a stored press to its run, records the outcome (of processes racing on it, one), and
   * tells the presser. A prompt already answered by this very press (its process died before
   * recording that) counts as applied: the prompt's compare-and-swap took it once.
   */
  async #give(setup: ChannelSetup, key: string, value: string): Promise<void> {
    const { store, runs, signal } = this.#options;
    const stored = parseStoredPress(value);
    if (!stored) return;
    const { answer, answeredBy, runId } = stored;
    let status: StoredPress["status"] = "applied";
    try {
      if (answer.kind === "permission")
        await runs.answerApproval(runId, answer.promptId, answer.answer, answeredBy);
      else await runs.answerQuestion(runId, answer.promptId, answer.answer, answeredBy);
    } catch (error) {
      const failure = toResonError(error);
      if (failure.code !== "prompt_closed" && failure.code !== "not_found") throw failure;
      status = answeredByThis(await store.prompts.get(answer.promptId), stored) ? "applied" : "closed";
    }
    const settled = JSON.stringify({ ...stored, status });
    if (!(await store.channels.replaceState(setup.adapter.name, key, value, settled))) return;
    const prompt = await store.prompts.get(answer.promptId);
    const by = answeredBy.displayName ?? answeredBy.senderId;
    const result =
      status === "applied" && prompt
        ? `${promptMessage(prompt).text}\n\n${answer.words} by ${by}`
        : undefined;
    const notice = status === "applied" ? `Done: ${answer.words}.` : TOO_LATE;
    // Where the press was acknowledged already, only the message changes.
    const told = setup.adapter.acknowledgePress !== undefined;
    await setup.adapter
      .settlePress?.(stored.press, told ? undefined : notice, result, signal)
      .catch(() => {});
  }
}

/** The prompt holds this press's answer (same sender, same decision or choice). */
function answeredByThis(prompt: RunPromptRecord | undefined, stored: StoredPress): boolean {
  const by = answeredByOf(prompt);
  if (
    !prompt ||
    !by ||
    by.channel !== stored.answeredBy.channel ||
    by.senderId !== stored.answeredBy.senderId
  )
    return false;
  const held = prompt.answer as { decision?: unknown; answer?: unknown } | null;
  return stored.answer.kind === "permission"
    ? held?.decision === stored.answer.answer.decision
    : held?.answer === stored.answer.answer;
}

function parseStoredPress(value: string | undefined): StoredPress | undefined {
  if (!value) return undefined;
  try {
    const parsed = JSON.parse(value) as Partial<StoredPress>;
    if (typeof parsed.runId !== "string" || !parsed.answer || !parsed.answeredBy || !parsed.press)
      return undefined;
    return parsed as StoredPress;
  } catch {
    return undefined;
  }
}
