// A channel's first call to its platform (Telegram's getMe, Slack's auth.test) when serve starts.
// A platform that refuses the token has answered: the channel stops, with the error and its hint.
// One that does not answer yet (serve started before the network, a 5xx, a 429 flood wait) is
// asked again, after the wait it names or 1 s doubling up to a minute, for as long as serve runs:
// a chat channel must not stay dead until someone restarts serve because the network came up late.
import type { ResonError } from "../core/errors.js";
import { pause } from "./poller-lease.js";
import type { ChannelLog } from "./types.js";

/** What the platform's error means: it refused (stop with this error), or ask again later. */
export type PlatformFailure = { refused: ResonError } | { retryAfterMs?: number; reason: string };

const FIRST_WAIT_MS = 1000;
const MAX_WAIT_MS = 60_000;
/** A wait the platform names is kept up to an hour; past that it is taken as an hour. */
const MAX_NAMED_WAIT_MS = 60 * 60 * 1000;

export interface UntilAnswersOptions<T> {
  channel: string;
  /** The call, as the log names it ("getMe"). */
  what: string;
  log: ChannelLog;
  signal: AbortSignal;
  attempt: () => Promise<T>;
  classify: (error: unknown) => PlatformFailure;
  /** Told before each wait: why, and when the platform is asked again (epoch ms). */
  onWait?: (reason: string, retryAt: number) => void;
}

/** The call's result once the platform answers; undefined when `signal` ended the waiting. */
export async function untilPlatformAnswers<T>(options: UntilAnswersOptions<T>): Promise<T | undefined> {
  const { channel, what, log, signal } = options;
  for (let failures = 0; !signal.aborted; failures++) {
    try {
      return await options.attempt();
    } catch (error) {
      if (signal.aborted) return undefined;
      const failure = options.classify(error);
      if ("refused" in failure) throw failure.refused;
      const backoff = Math.min(MAX_WAIT_MS, FIRST_WAIT_MS * 2 ** failures);
      const waitMs =
        failure.retryAfterMs === undefined ? backoff : Math.min(MAX_NAMED_WAIT_MS, failure.retryAfterMs);
      log({
        level: "warn",
        message: `channel ${channel}: ${what} got no answer (${failure.reason}); trying again in ${seconds(waitMs)}`,
        channel,
        retryInMs: waitMs,
      });
      options.onWait?.(failure.reason, Date.now() + waitMs);
      await pause(waitMs, signal);
    }
  }
  return undefined;
}

function seconds(ms: number): string {
  return ms < 60_000 ? `${Math.ceil(ms / 1000)} s` : `${Math.ceil(ms / 60_000)} min`;
}
