// A server-sent events parser over raw bytes. Each byte is looked at once: lines are found
// with Buffer.indexOf (native), only a line that spans chunks is copied, and only the value
// of a `data` or `event` field is decoded. Lines end in \n, \r\n or \r (also when the pair
// is split between chunks); a blank line ends an event; several `data` lines are joined with
// \n; comments (":…") and other fields are skipped. An event still open when the stream ends
// is delivered too, so a last event without its blank line is not lost.

const LF = 0x0a;
const CR = 0x0d;
const COLON = 0x3a;
const SPACE = 0x20;

export interface SseEvent {
  /** The `event` field; "" when absent. */
  event: string;
  data: string;
}

export class SseParser {
  /** The start of a line that has not ended yet. */
  private partial: Buffer[] = [];
  /** The previous chunk ended in \r: a \n starting the next one belongs to it. */
  private afterCr = false;
  private data: string | undefined;
  private event = "";

  constructor(private readonly onEvent: (event: SseEvent) => void) {}

  push(chunk: Buffer): void {
    const length = chunk.length;
    let start = 0;
    if (this.afterCr) {
      this.afterCr = false;
      if (length > 0 && chunk[0] === LF) start = 1;
    }
    // Most streams have no \r at all: look for one once, and again only after passing it.
    let cr = chunk.indexOf(CR, start);
    while (start < length) {
      const lf = chunk.indexOf(LF, start);
      if (cr !== -1 && cr < start) cr = chunk.indexOf(CR, start);
      let end: number;
      let next: number;
      if (cr !== -1 && (lf === -1 || cr < lf)) {
        end = cr;
        if (cr + 1 < length) {
          next = chunk[cr + 1] === LF ? cr + 2 : cr + 1;
        } else {
          next = length;
          this.afterCr = true;
        }
      } else if (lf !== -1) {
        end = lf;
        next = lf + 1;
      } else {
        this.partial.push(chunk.subarray(start));
        return;
      }
      if (this.partial.length > 0) {
        this.partial.push(chunk.subarray(start, end));
        const line = Buffer.concat(this.partial);
        this.partial = [];
        this.line(line, 0, line.length);
      } else {
        this.line(chunk, start, end);
      }
      start = next;
    }
  }

  /** The stream is over: delivers a last line and event that were not terminated. */
  end(): void {
    if (this.partial.length > 0) {
      const line = Buffer.concat(this.partial);
      this.partial = [];
      this.line(line, 0, line.length);
    }
    this.dispatch();
  }

  private line(buffer: Buffer, start: number, end: number): void {
    if (start === end) {
      this.dispatch();
      return;
    }
    if (buffer[start] === COLON) return; // a comment
    let colon = buffer.indexOf(COLON, start);
    if (colon === -1 || colon > end) colon = end;
    const nameLength = colon - start;
    let valueStart = colon + 1;
    if (valueStart < end && buffer[valueStart] === SPACE) valueStart++;
    if (valueStart > end) valueStart = end;
    if (nameLength === 4 && buffer.toString("latin1", start, colon) === "data") {
      const value = buffer.toString("utf8", valueStart, end);
      this.data = this.data === undefined ? value : `${this.data}\n${value}`;
    } else if (nameLength === 5 && buffer.toString("latin1", start, colon) === "event") {
      this.event = buffer.toString("utf8", valueStart, end);
    }
  }

  private dispatch(): void {
    const data = this.data;
    const event = this.event;
    this.data = undefined;
    this.event = "";
    if (data !== undefined) this.onEvent({ event, data });
  }
}
