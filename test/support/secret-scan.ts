// Finds a secret in bytes, in every form it could take: raw, base64 (and base64url), hex,
// percent-encoded, JSON-escaped, UTF-16LE, and any 8-character window of the raw value. Every
// test that handles a secret can scan what reson wrote or sent with it.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";

export interface Finding {
  where: string;
  form: string;
}

function forms(value: string): Array<[string, Buffer]> {
  const raw = Buffer.from(value, "utf8");
  const out: Array<[string, Buffer]> = [
    ["raw", raw],
    ["base64", Buffer.from(raw.toString("base64").replace(/=+$/, ""))],
    ["base64url", Buffer.from(raw.toString("base64url"))],
    ["hex", Buffer.from(raw.toString("hex"))],
    ["HEX", Buffer.from(raw.toString("hex").toUpperCase())],
    ["percent", Buffer.from(encodeURIComponent(value))],
    ["json", Buffer.from(JSON.stringify(value).slice(1, -1))],
    ["utf16le", Buffer.from(value, "utf16le")],
  ];
  for (let i = 0; i + 8 <= value.length; i++) out.push([`window@${i}`, Buffer.from(value.slice(i, i + 8))]);
  return out;
}

/** Every place `value` shows up in `sources` (name → bytes or text). */
export function scanForSecret(value: string, sources: Record<string, Buffer | string>): Finding[] {
  const patterns = forms(value);
  const findings: Finding[] = [];
  for (const [where, content] of Object.entries(sources)) {
    const bytes = typeof content === "string" ? Buffer.from(content, "utf8") : content;
    for (const [form, pattern] of patterns) {
      if (bytes.includes(pattern)) findings.push({ where, form });
    }
  }
  return findings;
}

/** Every file under `dir` (recursively) as name → bytes, skipping names `skip` returns true for. */
export function filesUnder(
  dir: string,
  skip: (path: string) => boolean = () => false,
): Record<string, Buffer> {
  const out: Record<string, Buffer> = {};
  const walk = (current: string) => {
    for (const name of readdirSync(current)) {
      const path = join(current, name);
      if (skip(path)) continue;
      const info = statSync(path, { throwIfNoEntry: false });
      if (!info) continue;
      if (info.isDirectory()) walk(path);
      else if (info.isFile()) out[path] = readFileSync(path);
    }
  };
  walk(dir);
  return out;
}
