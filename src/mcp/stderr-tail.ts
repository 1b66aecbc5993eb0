// What a local MCP server writes to stderr: masked line by line on its way to the server's log,
// and its last lines kept, so that a server that fails to start says why in its own words
// (npx's certificate error, a missing module) in the warning or error the user sees. Masked:
// the user's secrets, the values the definition gave the server and the variables it names.
import { ResonError } from "../core/errors.js";
import { Redactor } from "../core/redactor.js";
import type { McpServerEntry } from "./definitions.js";

const MAX_LINES = 8;
const MAX_LINE_CHARS = 300;
/** Only this much of the stream is kept: enough for the last lines. */
const KEEP_CHARS = 8_192;
const REFERENCE = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-[^}]*)?\}/g;
/** Shorter values would mask ordinary text (the redactor's own floor). */
const MIN_SECRET_LENGTH = 8;
/** Words of a failure that a proxy or a private certificate authority would explain. */
const NETWORK =
  /certificate|CERT_|SELF_SIGNED|UNABLE_TO_(GET|VERIFY)|ECONNREFUSED|ETIMEDOUT|ENOTFOUND|EAI_AGAIN|ECONNRESET|proxy|getaddrinfo|network/i;

export class StderrTail {
  #text = "";
  /** The start of a line not ended yet, held back so no secret is split across two writes. */
  #partial = "";

  constructor(private readonly redact: (text: string) => string) {}

  /** Takes a chunk; returns the lines it completed, masked (for the log), or "". */
  push(chunk: string): string {
    this.#text = (this.#text + chunk).slice(-KEEP_CHARS);
    const pending = this.#partial + chunk;
    const end = pending.lastIndexOf("\n");
    // A line longer than what is kept goes out as it is (masked) rather than growing without end.
    const cut = end >= 0 ? end + 1 : pending.length > KEEP_CHARS ? pending.length : 0;
    this.#partial = pending.slice(cut);
    return cut > 0 ? this.redact(pending.slice(0, cut)) : "";
  }

  /** The last non-empty lines, masked, each cut to a readable length. */
  lines(): string[] {
    return this.redact(this.#text)
      .split(/\r?\n/)
      .map((line) => line.trimEnd())
      .filter((line) => line.trim() !== "")
      .slice(-MAX_LINES)
      .map((line) => (line.length > MAX_LINE_CHARS ? `${line.slice(0, MAX_LINE_CHARS - 1)}…` : line));
  }

  /**
   * `error` with the server's last stderr lines after its message, and for a failure that looks
   * like the network's, a hint saying that a local server only sees the variables its `env` gives.
   */
  explain(error: ResonError, entry: McpServerEntry): ResonError {
    const lines = this.lines();
    if (lines.length === 0) return error;
    const local = entry.config.url === undefined;
    const network = local && lines.some((line) => NETWORK.test(line));
    const hint = network
      ? `A local MCP server gets a scrubbed environment (PATH, HOME, USER, SHELL, TERM, LOGNAME): pass the proxy and certificate variables it needs through the "env" of "${entry.name}" in ${entry.source}, e.g. "env": { "HTTPS_PROXY": "\${HTTPS_PROXY}", "NODE_EXTRA_CA_CERTS": "\${NODE_EXTRA_CA_CERTS}" }.`
      : error.hint;
    return new ResonError(
      error.code,
      `${error.message}\n  ${entry.name}'s stderr ended with:\n${lines.map((line) => `    ${line}`).join("\n")}`,
      {
        ...(hint ? { hint } : {}),
        details: { ...error.details, server: entry.name, stderr: lines },
        cause: error,
      },
    );
  }
}

/**
 * What the server was given that may be secret, by name: the values of its `env` and `headers`
 * (after `${VAR}` and `<secret>` were filled in) and the environment variables its definition
 * names. A run that uses the server masks them in everything it keeps and shows.
 */
export function serverSecrets(
  entry: McpServerEntry,
  started: { env?: Record<string, string>; headers?: Record<string, string> },
  env: NodeJS.ProcessEnv,
): { name: string; value: string }[] {
  const found: { name: string; value: string }[] = [];
  const add = (name: string, value: string | undefined) => {
    if (value === undefined || value.length < MIN_SECRET_LENGTH) return;
    found.push({ name: name.replace(/[^A-Za-z0-9_.-]/g, "_").slice(0, 64) || "value", value });
  };
  for (const record of [started.env, started.headers])
    for (const [key, value] of Object.entries(record ?? {})) add(key, value);
  for (const [, name] of JSON.stringify(entry.config).matchAll(REFERENCE))
    add(name as string, env[name as string]);
  return found;
}

/** Masks the server's secrets (serverSecrets) and the user's in what it writes to stderr. */
export function serverRedactor(
  secrets: readonly { name: string; value: string }[],
  userSecrets?: (text: string) => string,
): (text: string) => string {
  const redactor = new Redactor({ minLength: MIN_SECRET_LENGTH });
  for (const { name, value } of secrets) redactor.add(name, value);
  return (text) => redactor.redact(userSecrets ? userSecrets(text) : text);
}
