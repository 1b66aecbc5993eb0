// The one redactor: every sink (history, traces, logs, terminal, provider requests) passes its
// text through it, so a registered secret never leaves raw or in a common encoding of it.
// Arbitrary transformations (reversal, compression, rot13) cannot be caught by matching.
import { StringDecoder } from "node:string_decoder";
import { ResonError } from "./errors.js";

export const SECRET_NAME_PATTERN = /^[A-Za-z0-9_.-]{1,64}$/;

/** What the model writes to use a secret and what a redacted value turns back into. */
export function secretPlaceholder(name: string): string {
  return `<secret>${name}</secret>`;
}

export interface RedactorOptions {
  /** Values shorter than this would mask ordinary text and are refused (default 8). */
  minLength?: number;
}

export interface AddSecretOptions {
  /** For values known to be short and fleeting, such as a 6-digit TOTP code. */
  allowShort?: boolean;
}

/** Where registered values sit in a text; overlapping occurrences are merged into one. */
export interface RedactionSpan {
  start: number;
  end: number;
  names: string[];
}

interface Compiled {
  /** A lookahead alternation, longest form first, so every start position reports its longest form. */
  pattern: RegExp;
  /** Every form, longest first. */
  forms: string[];
  longestForm: number;
  shortestForm: number;
}

export class Redactor {
  readonly minLength: number;
  readonly #formToName = new Map<string, string>();
  readonly #values = new Set<string>();
  #compiled: Compiled | undefined;

  constructor(options: RedactorOptions = {}) {
    this.minLength = options.minLength ?? 8;
  }

  /** How many distinct values are registered. */
  get size(): number {
    return this.#values.size;
  }

  /** Registers a value under a name; adding a value again is a no-op (its first name stays). */
  add(name: string, value: string, options: AddSecretOptions = {}): void {
    if (!SECRET_NAME_PATTERN.test(name)) {
      throw new ResonError("secret_invalid", `"${name}" is not a valid secret name.`, {
        hint: "Use 1 to 64 characters from A-Z, a-z, 0-9, '_', '.' and '-'.",
      });
    }
    if (value === "") throw new ResonError("secret_invalid", `The secret ${name} has an empty value.`);
    if (value.length < this.minLength && !options.allowShort) {
      throw new ResonError(
        "secret_invalid",
        `The secret ${name} is ${value.length} characters long; values shorter than ${this.minLength} would mask ordinary text.`,
        { hint: "Use a longer value." },
      );
    }
    if (this.#values.has(value)) return;
    this.#values.add(value);
    for (const form of encodedForms(value, this.minLength)) {
      if (!this.#formToName.has(form)) this.#formToName.set(form, name);
    }
    this.#compiled = undefined;
  }

  /** Replaces every registered value and its encodings with `<secret>name</secret>`. */
  redact(text: string): string {
    if (this.#formToName.size === 0 || text === "") return text;
    return render(text, this.spans(text), text.length);
  }

  /** A redactor for text that arrives in chunks; see StreamRedactor. */
  stream(): StreamRedactor {
    return new StreamRedactor(this);
  }

  /** Length of the longest form any value can take; a stream holds back one less. */
  get longestForm(): number {
    if (this.#formToName.size === 0) return 0;
    return this.#compile().longestForm;
  }

  /** Every occurrence of a registered value or encoding, overlapping ones merged, in order. */
  spans(text: string): RedactionSpan[] {
    const spans: RedactionSpan[] = [];
    if (this.#formToName.size === 0) return spans;
    const { pattern, shortestForm } = this.#compile();
    // Most text holds no secret: one scan says so without matchAll's copy of the pattern.
    if (text.length < shortestForm) return spans;
    pattern.lastIndex = 0;
    const found = pattern.test(text);
    pattern.lastIndex = 0;
    if (!found) return spans;
    for (const match of text.matchAll(pattern)) {
      const form = match[1]!;
      const start = match.index;
      const end = start + form.length;
      const name = this.#formToName.get(form)!;
      const last = spans.at(-1);
      if (last && start < last.end) {
        last.end = Math.max(last.end, end);
        if (!last.names.includes(name)) last.names.push(name);
        continue;
      }
      spans.push({ start, end, names: [name] });
    }
    return spans;
  }

  #compile(): Compiled {
    if (this.#compiled) return this.#compiled;
    const forms = [...this.#formToName.keys()].sort((a, b) => b.length - a.length);
    const pattern = new RegExp(`(?=(${forms.map(escapeRegExp).join("|")}))`, "g");
    this.#compiled = { pattern, forms, longestForm: forms[0]!.length, shortestForm: forms.at(-1)!.length };
    return this.#compiled;
  }

  /**
   * How many characters at the end of `text` begin a registered value or encoding without
   * completing it (the longest such end): what a stream must hold back until more arrives.
   */
  unfinishedEnd(text: string): number {
    if (this.#formToName.size === 0) return 0;
    let longest = 0;
    for (const form of this.#compile().forms) {
      if (form.length - 1 <= longest) break; // longest first: no shorter form can beat it
      // The earliest start whose rest of the text the form begins with gives the longest end.
      const from = Math.max(0, text.length - (form.length - 1));
      for (let at = text.indexOf(form[0]!, from); at !== -1; at = text.indexOf(form[0]!, at + 1)) {
        if (text.length - at <= longest) break;
        if (form.startsWith(text.slice(at))) {
          longest = text.length - at;
          break;
        }
      }
    }
    return longest;
  }
}

/**
 * Redacts text that arrives in chunks. It holds back the end of what came that begins a value
 * or an encoding of one without completing it (none, most of the time), so a value split
 * across chunks is still caught and ordinary text is not delayed; `end()` flushes. `push` also takes bytes,
 * decoded as UTF-8 with a StringDecoder so a character split across chunks survives. A value
 * added to the redactor after the stream started is caught from the next push on.
 */
export class StreamRedactor {
  readonly #redactor: Redactor;
  #pending = "";
  #decoder: StringDecoder | undefined;

  constructor(redactor: Redactor) {
    this.#redactor = redactor;
  }

  push(chunk: string | Uint8Array): string {
    const text = typeof chunk === "string" ? chunk : this.#decode(chunk);
    const buffer = this.#pending + text;
    const longest = this.#redactor.longestForm;
    if (longest === 0) {
      this.#pending = "";
      return buffer;
    }
    // Any occurrence starting before `cut` lies wholly inside the buffer: one that went on past
    // its end would make a longer unfinished end.
    let cut = buffer.length - this.#redactor.unfinishedEnd(buffer);
    // Never emit half of a surrogate pair: a sink writing UTF-8 would turn it into U+FFFD.
    if (cut > 0 && isHighSurrogate(buffer.charCodeAt(cut - 1))) cut -= 1;
    if (cut <= 0) {
      this.#pending = buffer;
      return "";
    }
    const spans = this.#redactor.spans(buffer);
    const straddling = spans.find((span) => span.start < cut && span.end > cut);
    if (straddling) cut = straddling.end;
    this.#pending = buffer.slice(cut);
    return render(
      buffer,
      spans.filter((span) => span.end <= cut),
      cut,
    );
  }

  end(): string {
    const rest = this.#pending + (this.#decoder?.end() ?? "");
    this.#pending = "";
    return this.#redactor.redact(rest);
  }

  #decode(bytes: Uint8Array): string {
    this.#decoder ??= new StringDecoder("utf8");
    return this.#decoder.write(bytes);
  }
}

function render(text: string, spans: RedactionSpan[], until: number): string {
  let out = "";
  let at = 0;
  for (const span of spans) {
    out += text.slice(at, span.start) + span.names.map(secretPlaceholder).join("");
    at = span.end;
  }
  return out + text.slice(at, until);
}

/**
 * The forms a value can take in text: raw, JSON-escaped (once, twice, ASCII-only), percent-
 * and form-encoded, HTML-escaped, hex, base64/base64url and UTF-16LE bytes read as latin1.
 * Base64 also at the three byte alignments inside a longer blob (`Basic base64(user:pass)`),
 * keeping only the characters no neighbouring byte affects.
 */
export function encodedForms(value: string, minFragmentLength: number): string[] {
  const bytes = Buffer.from(value, "utf8");
  const json = JSON.stringify(value).slice(1, -1);
  const percent = encodeURIComponent(value);
  const forms = [
    value,
    json,
    JSON.stringify(json).slice(1, -1),
    json.replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`),
    percent,
    percent.replace(/%[0-9A-F]{2}/g, (hex) => hex.toLowerCase()),
    new URLSearchParams([["", value]]).toString().slice(1),
    escapeHtml(value),
    bytes.toString("hex"),
    bytes.toString("hex").toUpperCase(),
    bytes.toString("base64"),
    bytes.toString("base64url"),
    Buffer.from(value, "utf16le").toString("latin1"),
  ];
  for (const fragment of base64Fragments(bytes)) {
    if (fragment.length >= minFragmentLength) forms.push(fragment, toBase64Url(fragment));
  }
  return [...new Set(forms)].filter((form) => form !== "");
}

/**
 * With `a` bytes before the value, base64 character i covers bits [6i, 6i+6) and the value
 * bits [8a, 8a+8n): the characters wholly inside are the same whatever surrounds the value.
 */
function base64Fragments(bytes: Buffer): string[] {
  const bits = bytes.length * 8;
  return [0, 1, 2].map((align) => {
    const encoded = Buffer.concat([Buffer.alloc(align), bytes]).toString("base64");
    return encoded.slice(Math.ceil((8 * align) / 6), Math.floor((8 * align + bits) / 6));
  });
}

function toBase64Url(base64: string): string {
  return base64.replaceAll("+", "-").replaceAll("/", "_");
}

function escapeHtml(value: string): string {
  return value.replace(
    /[&<>"']/g,
    (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!,
  );
}

function escapeRegExp(text: string): string {
  return text.replace(/[\\^$.*+?()[\]{}|/-]/g, "\\$&");
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

/**
 * `value` with every string in it (object keys aside) passed through `redact`: a record or an
 * event about to be written, copied only where a string changed. Plain objects and arrays are
 * walked; anything else (bytes, numbers) is kept as it is.
 */
export function redactDeep<T>(value: T, redact: (text: string) => string): T {
  if (typeof value === "string") return redact(value) as T;
  if (value === null || typeof value !== "object") return value;
  // Every event and every batch of a run comes through here: nothing is copied until a value
  // changes, and then only the objects on its path.
  if (Array.isArray(value)) {
    let out: unknown[] | undefined;
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i];
      const masked = redactDeep(item, redact);
      if (masked === item) continue;
      out ??= value.slice();
      out[i] = masked;
    }
    return (out ?? value) as T;
  }
  if (Object.getPrototypeOf(value) !== Object.prototype) return value;
  const record = value as Record<string, unknown>;
  let out: Record<string, unknown> | undefined;
  for (const key of Object.keys(record)) {
    const item = record[key];
    const masked = redactDeep(item, redact);
    if (masked === item) continue;
    out ??= { ...record };
    out[key] = masked;
  }
  return (out ?? value) as T;
}
