// The JSON pages of ended runs' events, kept as the text sent: a run that ended is read whole
// by every page that opens it (the web view reads its events first), and its events change
// only if it is resumed, which moves its last seq, the key's last part. Bounded in entries and
// characters; the least recently used page leaves first.

export interface EndedRunEventsOptions {
  maxEntries?: number;
  maxChars?: number;
}

interface Entry {
  lastSeq: number;
  text: string;
}

export class EndedRunEvents {
  readonly #entries = new Map<string, Entry>();
  readonly #maxEntries: number;
  readonly #maxChars: number;
  #chars = 0;

  constructor({ maxEntries = 32, maxChars = 32 * 1024 * 1024 }: EndedRunEventsOptions = {}) {
    this.#maxEntries = maxEntries;
    this.#maxChars = maxChars;
  }

  /** The page's text if it was kept at this last seq; made (and kept) by `read` otherwise. */
  async page(
    runId: string,
    after: number,
    limit: number,
    lastSeq: number,
    read: () => Promise<string>,
  ): Promise<string> {
    const key = `${runId}\u0000${after}\u0000${limit}`;
    const known = this.#entries.get(key);
    if (known && known.lastSeq === lastSeq) {
      // Least recently used leaves first: a hit moves to the end.
      this.#entries.delete(key);
      this.#entries.set(key, known);
      return known.text;
    }
    const text = await read();
    this.#forget(key);
    if (text.length > this.#maxChars) return text;
    this.#entries.set(key, { lastSeq, text });
    this.#chars += text.length;
    while (this.#entries.size > this.#maxEntries || this.#chars > this.#maxChars) {
      const oldest = this.#entries.keys().next().value;
      if (oldest === undefined) break;
      this.#forget(oldest);
    }
    return text;
  }

  /** How many pages are kept (for tests). */
  get size(): number {
    return this.#entries.size;
  }

  #forget(key: string): void {
    const entry = this.#entries.get(key);
    if (!entry) return;
    this.#chars -= entry.text.length;
    this.#entries.delete(key);
  }
}
