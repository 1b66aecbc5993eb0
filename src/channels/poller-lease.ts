// One poller per bot, however many `reson serve` processes share the store: Telegram answers a
// second getUpdates with 409, and two pollers would race for the offset. The poll loop runs
// under a store lease named for the channel (the run leases' table and rules: a crashed holder on
// this host is taken over at once, one elsewhere once its lease expires); the others wait.
import { toResonError } from "../core/errors.js";
import { leaseHolder, type Store } from "../store/index.js";
import type { ChannelLog } from "./types.js";

const TTL_MS = 30_000;
const RENEW_MS = 10_000;
const WAIT_MS = 5_000;

export async function pollWhileHolding(
  options: { store: Store; channel: string; log: ChannelLog; signal: AbortSignal },
  poll: (signal: AbortSignal) => Promise<void>,
): Promise<void> {
  const { store, channel, log, signal } = options;
  const holder = leaseHolder("reson serve (channel poller)");
  let toldWaiting = false;
  while (!signal.aborted) {
    let fence: { traceId: string; epoch: number };
    try {
      const lease = await store.leases.acquire(`channel:${channel}`, holder, { ttlMs: TTL_MS });
      fence = { traceId: lease.traceId, epoch: lease.epoch };
    } catch (error) {
      const failure = toResonError(error);
      if (failure.code !== "run_leased") throw failure;
      if (!toldWaiting)
        log({
          level: "info",
          message: `channel ${channel}: another reson serve polls it (${failure.message}); this one takes over if that one stops`,
          channel,
        });
      toldWaiting = true;
      await pause(WAIT_MS, signal);
      continue;
    }
    toldWaiting = false;
    const lost = new AbortController();
    const renewal = setInterval(() => {
      void store.leases
        .renew(fence, TTL_MS)
        .then((renewed) => {
          if (!renewed) lost.abort();
        })
        .catch(() => {});
    }, RENEW_MS);
    renewal.unref();
    try {
      await poll(AbortSignal.any([signal, lost.signal]));
    } finally {
      clearInterval(renewal);
      await store.leases.release(fence).catch(() => false);
    }
  }
}

export function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(resolve, ms);
    signal.addEventListener(
      "abort",
      () => {
        clearTimeout(timer);
        resolve();
      },
      { once: true },
    );
  });
}
