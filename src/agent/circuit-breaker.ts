// Stops a run that keeps failing: N consecutive failed steps open the breaker.
// A step fails when it made tool calls and every one of them failed.

export class CircuitBreaker {
  private consecutive = 0;
  private readonly recent: string[] = [];

  constructor(private readonly threshold: number) {}

  record(failed: boolean, reason?: string): void {
    if (!failed) {
      this.consecutive = 0;
      this.recent.length = 0;
      return;
    }
    this.consecutive++;
    if (reason) this.recent.push(reason);
    if (this.recent.length > this.threshold) this.recent.shift();
  }

  /** Back to the state a checkpoint recorded. */
  restore(consecutive: number, reasons: readonly string[]): void {
    this.consecutive = consecutive;
    this.recent.length = 0;
    this.recent.push(...reasons.slice(-this.threshold));
  }

  get open(): boolean {
    return this.consecutive >= this.threshold;
  }

  get consecutiveFailures(): number {
    return this.consecutive;
  }

  /** The failures that opened the breaker, newest last. */
  get reasons(): readonly string[] {
    return this.recent;
  }
}
