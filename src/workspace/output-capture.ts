// Bounded capture of a command's output: keeps the first and the last half of the byte
// budget and counts what fell in between, so a huge output costs bounded memory and the
// end (where errors usually are) is never lost.

export class OutputCapture {
  private readonly headLimit: number;
  private readonly tailLimit: number;
  private readonly head: Buffer[] = [];
  private headBytes = 0;
  private tail: Buffer[] = [];
  private tailBytes = 0;
  /** Every byte seen, kept or not. */
  totalBytes = 0;

  constructor(maxBytes: number) {
    this.headLimit = Math.ceil(maxBytes / 2);
    this.tailLimit = Math.floor(maxBytes / 2);
  }

  get truncated(): boolean {
    return this.totalBytes > this.headLimit + this.tailLimit;
  }

  push(chunk: Buffer): void {
    this.totalBytes += chunk.length;
    let rest = chunk;
    if (this.headBytes < this.headLimit) {
      const take = Math.min(this.headLimit - this.headBytes, rest.length);
      this.head.push(rest.subarray(0, take));
      this.headBytes += take;
      rest = rest.subarray(take);
    }
    if (rest.length === 0 || this.tailLimit === 0) return;
    this.tail.push(rest);
    this.tailBytes += rest.length;
    while (this.tail.length > 1 && this.tailBytes - this.tail[0]!.length >= this.tailLimit) {
      this.tailBytes -= this.tail.shift()!.length;
    }
  }

  /** The kept output as text, with a marker where bytes were dropped. */
  text(): string {
    const head = Buffer.concat(this.head);
    let tail = Buffer.concat(this.tail);
    if (tail.length > this.tailLimit) tail = tail.subarray(tail.length - this.tailLimit);
    const omitted = this.totalBytes - head.length - tail.length;
    if (omitted === 0) return decode(Buffer.concat([head, tail]));
    // Cut at character boundaries: drop a partial character at the end of the head (the
    // streaming decoder holds it back) and continuation bytes at the start of the tail.
    let start = 0;
    while (start < tail.length && (tail[start]! & 0xc0) === 0x80) start += 1;
    const headText = new TextDecoder("utf-8").decode(head, { stream: true });
    const tailText = decode(tail.subarray(start));
    return `${headText}\n\n[... ${omitted} bytes of output omitted ...]\n\n${tailText}`;
  }
}

function decode(bytes: Uint8Array): string {
  return new TextDecoder("utf-8").decode(bytes);
}
