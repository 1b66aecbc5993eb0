// The per-attempt deadlines shared by both wires: the response headers must arrive in time,
// and after that no silence in the stream may last too long.
import type { ExchangeListener } from "./http-capture.js";
import type { ProviderTimeouts } from "./types.js";

/**
 * Two deadlines in turn: the headers must arrive within headersTimeoutMs, then no silence
 * may last longer than idleTimeoutMs (re-armed by every body chunk and every event).
 */
export class Watchdog implements ExchangeListener {
  fired: "headers" | "idle" | undefined;
  private phase: "headers" | "idle" = "headers";
  private timer: NodeJS.Timeout;

  constructor(
    private readonly timeouts: ProviderTimeouts,
    private readonly onFire: () => void,
  ) {
    this.timer = this.arm(timeouts.headersTimeoutMs);
  }

  onHeaders(): void {
    if (this.phase !== "headers") return;
    this.phase = "idle";
    clearTimeout(this.timer);
    this.timer = this.arm(this.timeouts.idleTimeoutMs);
  }

  onData(): void {
    if (this.phase === "headers") this.onHeaders();
    else this.timer.refresh();
  }

  limitMs(): number {
    return this.fired === "headers" ? this.timeouts.headersTimeoutMs : this.timeouts.idleTimeoutMs;
  }

  stop(): void {
    clearTimeout(this.timer);
  }

  private arm(ms: number): NodeJS.Timeout {
    const timer = setTimeout(() => {
      this.fired = this.phase;
      this.onFire();
    }, ms);
    timer.unref();
    return timer;
  }
}
