import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { isResonError } from "../../src/core/errors.js";
import { encodedForms, Redactor } from "../../src/core/redactor.js";

const SECRET = 'p@ss w0rd/"quote"+ü';
const TAG = "<secret>db_password</secret>";

function redactorWith(entries: [string, string][]): Redactor {
  const redactor = new Redactor();
  for (const [name, value] of entries) redactor.add(name, value);
  return redactor;
}

describe("Redactor", () => {
  const redactor = redactorWith([["db_password", SECRET]]);
  const bytes = Buffer.from(SECRET, "utf8");

  it.each([
    ["raw", SECRET],
    ["JSON-escaped", JSON.stringify(SECRET).slice(1, -1)],
    ["JSON-escaped twice", JSON.stringify(JSON.stringify(SECRET).slice(1, -1)).slice(1, -1)],
    ["JSON with ASCII-only escapes", 'p@ss w0rd/\\"quote\\"+\\u00fc'],
    ["percent-encoded", encodeURIComponent(SECRET)],
    [
      "percent-encoded, lower-case hex",
      encodeURIComponent(SECRET).replace(/%[0-9A-F]{2}/g, (e) => e.toLowerCase()),
    ],
    ["form-encoded", new URLSearchParams({ q: SECRET }).toString().slice(2)],
    ["HTML-escaped", "p@ss w0rd/&quot;quote&quot;+ü"],
    ["hex", bytes.toString("hex")],
    ["HEX", bytes.toString("hex").toUpperCase()],
    ["base64", bytes.toString("base64")],
    ["base64url", bytes.toString("base64url")],
    ["UTF-16LE read as latin1", Buffer.from(SECRET, "utf16le").toString("latin1")],
  ])("replaces the %s form with its placeholder", (_form, encoded) => {
    expect(redactor.redact(`before ${encoded} after`)).toBe(`before ${TAG} after`);
  });

  it("finds the value inside a longer base64 blob at every byte alignment", () => {
    const withPassword = redactorWith([["password", "hunter2-correct-horse"]]);
    for (const user of ["a", "ab", "abc", "alice", "bob12"]) {
      const header = `Authorization: Basic ${Buffer.from(`${user}:hunter2-correct-horse`).toString("base64")}`;
      const redacted = withPassword.redact(header);
      expect(redacted).toContain("<secret>password</secret>");
      // What is left of the blob carries at most the few bits at the edges.
      const blob = redacted.replace("Authorization: Basic ", "").replace("<secret>password</secret>", "");
      expect(blob.length).toBeLessThanOrEqual(Math.ceil(((user.length + 1) * 8) / 6) + 2 + 4);
      for (const encoding of ["base64", "base64url"] as const) {
        for (const pad of ["", "x", "xy"]) {
          const blob2 = Buffer.from(`${pad}${user}:hunter2-correct-horse;tail`).toString(encoding);
          expect(withPassword.redact(blob2)).toContain("<secret>password</secret>");
        }
      }
    }
  });

  it("prefers the longest value where values overlap, and leaves no part of either", () => {
    const overlapping = redactorWith([
      ["short", "abcdefgh"],
      ["long", "abcdefgh-ijkl"],
      ["tail", "ijkl-mnopqrst"],
    ]);
    expect(overlapping.redact("x abcdefgh-ijkl y")).toBe("x <secret>long</secret> y");
    expect(overlapping.redact("x abcdefgh y")).toBe("x <secret>short</secret> y");
    // "long" and "tail" share "ijkl": both are hidden, neither shows a fragment.
    expect(overlapping.redact("x abcdefgh-ijkl-mnopqrst y")).toBe(
      "x <secret>long</secret><secret>tail</secret> y",
    );
  });

  it("treats regular-expression metacharacters in values literally", () => {
    const meta = redactorWith([["meta", "a.b*c+d?e(f)[g]{h}|i^j$k\\l/m"]]);
    expect(meta.redact("=a.b*c+d?e(f)[g]{h}|i^j$k\\l/m=")).toBe("=<secret>meta</secret>=");
    expect(meta.redact("aXb*c+d?e(f)[g]{h}|i^j$k\\l/m")).toBe("aXb*c+d?e(f)[g]{h}|i^j$k\\l/m");
  });

  it("leaves text alone when it holds no secret, and when nothing is registered", () => {
    expect(redactor.redact("nothing here")).toBe("nothing here");
    const empty = new Redactor();
    expect(empty.redact(SECRET)).toBe(SECRET);
    expect(empty.stream().push(SECRET)).toBe(SECRET);
  });

  it("refuses values shorter than minLength unless allowShort, and bad names", () => {
    const guarded = new Redactor();
    expect(() => guarded.add("pin", "1234567")).toThrow(/shorter than 8/);
    guarded.add("otp_2fa_code", "123456", { allowShort: true });
    expect(guarded.redact("code 123456.")).toBe("code <secret>otp_2fa_code</secret>.");
    expect(() => guarded.add("bad name", "long enough value")).toThrow(/not a valid secret name/);
    expect(() => guarded.add("empty", "", { allowShort: true })).toThrow(/empty/);
    try {
      guarded.add("pin", "1234");
    } catch (error) {
      expect(isResonError(error) && error.code).toBe("secret_invalid");
      expect((error as Error).message).not.toContain("1234");
    }
    expect(() => new Redactor({ minLength: 4 }).add("pin", "1234")).not.toThrow();
  });

  it("does not turn short allowed values into tiny base64 fragments that mask unrelated text", () => {
    expect(encodedForms("123456", 8).every((form) => form.length >= 6)).toBe(true);
  });

  it("catches values added after earlier redactions", () => {
    const growing = redactorWith([["first", "first-secret-value"]]);
    expect(growing.redact("second-secret-value")).toBe("second-secret-value");
    growing.add("second", "second-secret-value");
    expect(growing.redact("first-secret-value second-secret-value")).toBe(
      "<secret>first</secret> <secret>second</secret>",
    );
  });

  it("redacts 10,000 lines of output with many secrets", () => {
    const many = new Redactor();
    for (let n = 0; n < 20; n += 1) many.add(`key_${n}`, `sk-${n}-${"x".repeat(20)}-${n * 7919}`);
    const lines = Array.from({ length: 10_000 }, (_, n) =>
      n % 1000 === 0
        ? `line ${n}: token=sk-3-${"x".repeat(20)}-${3 * 7919}`
        : `line ${n}: ordinary build output`,
    );
    const redacted = many.redact(lines.join("\n")).split("\n");
    expect(redacted).toHaveLength(10_000);
    expect(redacted.filter((line) => line.includes("<secret>key_3</secret>"))).toHaveLength(10);
    expect(redacted[1]).toBe("line 1: ordinary build output");
  });
});

describe("StreamRedactor", () => {
  const value = "tok_9f8e7d6c5b4a";
  const redactor = redactorWith([["api_token", value]]);

  it("catches a value split across two chunks at any position, in any of its forms", () => {
    const forms = [value, Buffer.from(value).toString("base64"), Buffer.from(value).toString("hex")];
    fc.assert(
      fc.property(
        fc.constantFrom(...forms),
        fc.string({ maxLength: 40 }),
        fc.string({ maxLength: 40 }),
        fc.nat(),
        (form, before, after, at) => {
          const text = `${before} ${form} ${after}`;
          const split = at % (text.length + 1);
          const stream = redactor.stream();
          const out = stream.push(text.slice(0, split)) + stream.push(text.slice(split)) + stream.end();
          expect(out).toBe(redactor.redact(text));
          expect(out).not.toContain(form);
        },
      ),
    );
  });

  it("catches a value spread over many one-character chunks", () => {
    const stream = redactor.stream();
    let out = "";
    for (const char of `say ${value} twice ${value}!`) out += stream.push(char);
    out += stream.end();
    expect(out).toBe("say <secret>api_token</secret> twice <secret>api_token</secret>!");
  });

  it("takes bytes and keeps a multi-byte character split across chunks whole", () => {
    const bytes = Buffer.from(`é ${value} 🙂 end`, "utf8");
    for (let split = 0; split <= bytes.length; split += 1) {
      const stream = redactor.stream();
      const out = stream.push(bytes.subarray(0, split)) + stream.push(bytes.subarray(split)) + stream.end();
      expect(out).toBe("é <secret>api_token</secret> 🙂 end");
    }
  });

  it("holds back only an end that begins a value: ordinary text streams at once", () => {
    const stream = redactor.stream();
    expect(stream.push("one two three ")).toBe("one two three ");
    // The end begins the value: kept until the next chunk says whether it is the value.
    expect(stream.push(`the key is ${value.slice(0, 5)}`)).toBe("the key is ");
    expect(stream.push(`${value.slice(5)} and`) + stream.push(" more.") + stream.end()).toBe(
      "<secret>api_token</secret> and more.",
    );
  });

  it("never emits half of a surrogate pair", () => {
    const stream = redactor.stream();
    const text = "🙂".repeat(40);
    const pieces = [stream.push(text.slice(0, 31)), stream.push(text.slice(31)), stream.end()];
    for (const piece of pieces) expect(Buffer.from(piece, "utf8").toString("utf8")).toBe(piece);
    expect(pieces.join("")).toBe(text);
  });
});
