// Reads one HTTP/1.1 response from the bytes of a connection, as they arrive: the status line
// and headers, then the body as its framing says (Content-Length, chunked, or up to the close
// of the connection), interim 1xx responses skipped. What a model server sends a client that
// asked for nothing unusual: a POST (no HEAD), no upgrade, no compression (none is asked for).
// RFC 9112: https://www.rfc-editor.org/rfc/rfc9112

/** The most a response's status line and headers may take. */
const MAX_HEAD_BYTES = 64 * 1024;
/** The most a chunk's size line (with extensions) or a trailer line may take. */
const MAX_LINE_BYTES = 8 * 1024;

export interface ResponseHead {
  status: number;
  /** Header values by lower-case name; a header sent more than once is joined with ", ". */
  headers: ReadonlyMap<string, string>;
  /** Whether the connection may carry another request once this response has ended. */
  keepAlive: boolean;
}

/** What the parser reports as it reads; whether the response has ended is its `done`. */
export interface ResponseEvents {
  head(head: ResponseHead): void;
  data(chunk: Buffer): void;
}

/** A response that is not HTTP/1.x as a client may read it. */
export class HttpParseError extends Error {}

type Framing =
  | { kind: "length"; left: number }
  | { kind: "chunked"; state: "size" | "data" | "data-end" | "trailers"; left: number }
  | { kind: "close" };

export class ResponseParser {
  #head: Buffer[] = [];
  #headBytes = 0;
  #framing: Framing | undefined;
  #line: Buffer[] = [];
  #lineBytes = 0;
  #done = false;

  constructor(private readonly events: ResponseEvents) {}

  /** The response has ended (its body is whole); bytes after it belong to no one. */
  get done(): boolean {
    return this.#done;
  }

  /** Whether the head has been read. */
  get responded(): boolean {
    return this.#framing !== undefined;
  }

  /**
   * The connection closed: a body framed by the close ends now; true when the response is whole.
   */
  close(): boolean {
    if (this.#framing?.kind === "close") this.#done = true;
    return this.#done;
  }

  /** Reads `chunk`; returns how many of its bytes belong to this response. */
  push(chunk: Buffer): number {
    let at = 0;
    while (at < chunk.length && !this.#done) {
      at = this.#framing === undefined ? this.#readHead(chunk, at) : this.#readBody(chunk, at);
    }
    return at;
  }

  #readHead(chunk: Buffer, at: number): number {
    // The end of the head may straddle chunks: look for it across the last few bytes kept.
    const kept = Math.min(3, this.#headBytes);
    const tail =
      kept > 0 ? Buffer.concat([lastBytes(this.#head, kept), chunk.subarray(at)]) : chunk.subarray(at);
    const end = tail.indexOf("\r\n\r\n");
    if (end < 0) {
      this.#keepHead(chunk.subarray(at));
      return chunk.length;
    }
    const used = end + 4 - kept;
    this.#keepHead(chunk.subarray(at, at + used));
    const text = Buffer.concat(this.#head).toString("latin1");
    this.#head = [];
    this.#headBytes = 0;
    this.#startBody(text.slice(0, -4));
    return at + used;
  }

  #keepHead(bytes: Buffer): void {
    this.#headBytes += bytes.length;
    if (this.#headBytes > MAX_HEAD_BYTES)
      throw new HttpParseError(`the response's headers are over ${MAX_HEAD_BYTES} bytes`);
    this.#head.push(bytes);
  }

  #startBody(text: string): void {
    const lines = text.split("\r\n");
    const statusLine = /^HTTP\/1\.([01]) (\d{3})(?: .*)?$/.exec(lines[0] ?? "");
    if (!statusLine)
      throw new HttpParseError(`not an HTTP/1.x status line: ${JSON.stringify(lines[0]?.slice(0, 80))}`);
    const minor = statusLine[1];
    const status = Number(statusLine[2]);
    const headers = new Map<string, string>();
    for (const line of lines.slice(1)) {
      const colon = line.indexOf(":");
      if (colon <= 0)
        throw new HttpParseError(`a malformed header line: ${JSON.stringify(line.slice(0, 80))}`);
      const name = line.slice(0, colon).trim().toLowerCase();
      const value = line.slice(colon + 1).trim();
      const before = headers.get(name);
      headers.set(name, before === undefined ? value : `${before}, ${value}`);
    }
    // An interim response (100 Continue, 103 Early Hints): the real one follows.
    if (status >= 100 && status < 200) return;
    const connection = (headers.get("connection") ?? "").toLowerCase();
    let keepAlive = minor === "1" ? !/\bclose\b/.test(connection) : /\bkeep-alive\b/.test(connection);
    const coding = headers.get("transfer-encoding");
    const length = headers.get("content-length");
    if (status === 204 || status === 304) {
      this.#framing = { kind: "length", left: 0 };
    } else if (coding !== undefined) {
      if (!/(?:^|,)\s*chunked\s*$/i.test(coding))
        throw new HttpParseError(`a transfer coding this client does not read: ${coding}`);
      this.#framing = { kind: "chunked", state: "size", left: 0 };
    } else if (length !== undefined) {
      const values = new Set(length.split(",").map((value) => value.trim()));
      const [only] = values;
      if (values.size !== 1 || only === undefined || !/^\d{1,15}$/.test(only))
        throw new HttpParseError(`an invalid Content-Length: ${length}`);
      this.#framing = { kind: "length", left: Number(only) };
    } else {
      this.#framing = { kind: "close" };
      keepAlive = false;
    }
    this.events.head({ status, headers, keepAlive });
    if (this.#framing.kind === "length" && this.#framing.left === 0) this.#done = true;
  }

  #readBody(chunk: Buffer, at: number): number {
    const framing = this.#framing!;
    if (framing.kind === "close") {
      this.events.data(chunk.subarray(at));
      return chunk.length;
    }
    if (framing.kind === "length") {
      const take = Math.min(framing.left, chunk.length - at);
      framing.left -= take;
      this.events.data(chunk.subarray(at, at + take));
      if (framing.left === 0) this.#done = true;
      return at + take;
    }
    switch (framing.state) {
      case "data": {
        const take = Math.min(framing.left, chunk.length - at);
        framing.left -= take;
        if (take > 0) this.events.data(chunk.subarray(at, at + take));
        if (framing.left === 0) framing.state = "data-end";
        return at + take;
      }
      case "data-end":
      case "size":
      case "trailers": {
        const newline = chunk.indexOf(0x0a, at);
        if (newline < 0) {
          this.#keepLine(chunk.subarray(at));
          return chunk.length;
        }
        this.#keepLine(chunk.subarray(at, newline + 1));
        const line = Buffer.concat(this.#line)
          .toString("latin1")
          .replace(/\r?\n$/, "");
        this.#line = [];
        this.#lineBytes = 0;
        this.#chunkedLine(framing, line);
        return newline + 1;
      }
    }
  }

  #keepLine(bytes: Buffer): void {
    this.#lineBytes += bytes.length;
    if (this.#lineBytes > MAX_LINE_BYTES)
      throw new HttpParseError("a chunk size or trailer line is too long");
    this.#line.push(bytes);
  }

  #chunkedLine(framing: Extract<Framing, { kind: "chunked" }>, line: string): void {
    if (framing.state === "data-end") {
      if (line !== "") throw new HttpParseError("a chunk is longer than its size says");
      framing.state = "size";
      return;
    }
    if (framing.state === "trailers") {
      if (line === "") this.#done = true; // trailers are not used
      return;
    }
    const size = /^([0-9a-fA-F]{1,12})[ \t]*(?:;.*)?$/.exec(line);
    if (!size) throw new HttpParseError(`an invalid chunk size: ${JSON.stringify(line.slice(0, 40))}`);
    framing.left = Number.parseInt(size[1]!, 16);
    framing.state = framing.left === 0 ? "trailers" : "data";
  }
}

/** The last `count` bytes of `parts`, which hold at least as many. */
function lastBytes(parts: readonly Buffer[], count: number): Buffer {
  const tail: Buffer[] = [];
  let need = count;
  for (let i = parts.length - 1; i >= 0 && need > 0; i--) {
    const part = parts[i]!;
    const take = Math.min(need, part.length);
    tail.unshift(part.subarray(part.length - take));
    need -= take;
  }
  return tail.length === 1 ? tail[0]! : Buffer.concat(tail);
}
