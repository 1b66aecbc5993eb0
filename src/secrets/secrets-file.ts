// Reads $RESON_HOME/secrets.json: `{ "<scope>": { "<name>": "<value>" | { "env": "VAR" } } }`.
// The file must be private to its owner; no error message ever quotes a value from it.
import { closeSync, fstatSync, openSync, readFileSync } from "node:fs";
import { ResonError } from "../core/errors.js";
import { SECRET_NAME_PATTERN } from "../core/redactor.js";
import { parseScope, type SecretScope } from "./scope.js";
import { isTotpSecret, parseTotp, type TotpGenerator } from "./totp.js";

export interface SecretEntry {
  name: string;
  scope: SecretScope;
  /** The value, or for a TOTP secret its seed. */
  value: string;
  totp: TotpGenerator | undefined;
  /** Where it was written, as a JSON path (`$["github.com"].token`). */
  at: string;
}

export interface SecretsParseOptions {
  /** Where `{ "env": "NAME" }` values are read from (default process.env). */
  env?: Readonly<Record<string, string | undefined>>;
  /** Values shorter than this are refused (default 8), as the redactor would refuse them. */
  minLength?: number;
}

export interface SecretsFileOptions extends SecretsParseOptions {
  signal?: AbortSignal;
}

export interface SecretsContents {
  entries: SecretEntry[];
  /** Secrets left out, such as an `{ "env": … }` whose variable is not set. */
  warnings: string[];
}

/** Reads and validates the secrets file; a missing file holds no secrets. */
export async function readSecretsFile(
  path: string,
  options: SecretsFileOptions = {},
): Promise<SecretsContents> {
  const text = readPrivateFile(path, options.signal);
  if (text === undefined) return { entries: [], warnings: [] };
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch (error) {
    // V8's message quotes the text around the error, which may be a secret: give a position only.
    throw new ResonError(
      "secrets_file_invalid",
      `${path} is not valid JSON${jsonErrorPosition(text, error)}.`,
      {
        hint: "Fix the JSON syntax of the file.",
        details: { path },
      },
    );
  }
  return parseSecrets(document, path, options);
}

/** Validates an already parsed secrets document; `source` names it in errors. */
export function parseSecrets(
  document: unknown,
  source: string,
  options: SecretsParseOptions = {},
): SecretsContents {
  const env = options.env ?? process.env;
  const minLength = options.minLength ?? 8;
  const entries: SecretEntry[] = [];
  const warnings: string[] = [];
  if (!isPlainObject(document))
    invalid(source, "$", 'expected an object of scopes, as in { "github.com": { … } }');
  for (const [scopeKey, secrets] of Object.entries(document)) {
    const scopeAt = jsonPath("$", scopeKey);
    const scope = parseScope(scopeKey);
    if (!scope.ok) invalid(source, scopeAt, scope.reason, SCOPE_KEY_HINT);
    if (!isPlainObject(secrets)) invalid(source, scopeAt, "expected an object of secrets by name");
    for (const [name, raw] of Object.entries(secrets)) {
      const at = jsonPath(scopeAt, name);
      if (!SECRET_NAME_PATTERN.test(name)) {
        invalid(source, at, "a secret name is 1 to 64 characters from A-Z, a-z, 0-9, '_', '.' and '-'");
      }
      const value = resolveValue(raw, env, source, at);
      if (value === undefined) {
        warnings.push(`Secret ${name} (${source} ${at}) is left out: its environment variable is not set.`);
        continue;
      }
      if (value.length < minLength) {
        invalid(source, at, `the value is shorter than ${minLength} characters and would mask ordinary text`);
      }
      if (value.includes("\0")) invalid(source, at, "a value cannot contain a NUL character");
      let totp: TotpGenerator | undefined;
      if (isTotpSecret(name, value)) {
        const parsed = parseTotp(value);
        if (!parsed.ok) invalid(source, at, parsed.reason);
        totp = parsed.totp;
      }
      entries.push({ name, scope: scope.scope, value, totp, at });
    }
  }
  return { entries, warnings };
}

function resolveValue(
  raw: unknown,
  env: Readonly<Record<string, string | undefined>>,
  source: string,
  at: string,
): string | undefined {
  if (typeof raw === "string") return raw;
  if (isPlainObject(raw) && Object.keys(raw).length === 1 && typeof raw.env === "string") {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(raw.env)) invalid(source, `${at}.env`, "not a valid variable name");
    const value = env[raw.env];
    return value === undefined || value === "" ? undefined : value;
  }
  return invalid(source, at, 'expected a string or { "env": "VARIABLE_NAME" }');
}

/**
 * The file's text, or undefined when it does not exist; refuses a file others can read. A small
 * file read at every run's start: synchronously, as a trip through the thread pool costs more.
 */
function readPrivateFile(path: string, signal: AbortSignal | undefined): string | undefined {
  signal?.throwIfAborted();
  let fd: number;
  try {
    fd = openSync(path, "r");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return undefined;
    throw new ResonError("secrets_file_invalid", `Cannot read ${path}: ${(error as Error).message}`, {
      cause: error,
      details: { path },
    });
  }
  try {
    // fstat on the open file: what is checked is what gets read.
    const stat = fstatSync(fd);
    if (!stat.isFile()) {
      throw new ResonError("secrets_file_invalid", `${path} is not a regular file.`, { details: { path } });
    }
    const uid = process.getuid?.();
    if (uid !== undefined && stat.uid !== uid) {
      throw new ResonError(
        "secrets_file_insecure",
        `${path} belongs to user ${stat.uid}, not to you (${uid}); refusing to load secrets from it.`,
        { hint: `chown ${uid} ${path} && chmod 600 ${path}`, details: { path } },
      );
    }
    if ((stat.mode & 0o077) !== 0) {
      const mode = (stat.mode & 0o777).toString(8).padStart(3, "0");
      throw new ResonError(
        "secrets_file_insecure",
        `${path} has mode ${mode}: other users can read or change it; refusing to load secrets from it.`,
        { hint: `chmod 600 ${path}`, details: { path, mode } },
      );
    }
    return readFileSync(fd, "utf8");
  } finally {
    closeSync(fd);
  }
}

function jsonErrorPosition(text: string, error: unknown): string {
  const position = /position (\d+)/.exec((error as Error).message)?.[1];
  if (position === undefined) return "";
  const before = text.slice(0, Number(position)).split("\n");
  return ` (line ${before.length}, column ${before.at(-1)!.length + 1})`;
}

function jsonPath(parent: string, key: string): string {
  return /^[A-Za-z_][A-Za-z0-9_]*$/.test(key) ? `${parent}.${key}` : `${parent}[${JSON.stringify(key)}]`;
}

const VALUE_HINT = 'Each scope key holds { "<name>": "<value>" } or { "<name>": { "env": "VARIABLE" } }.';
const SCOPE_KEY_HINT =
  'A scope key is a site (github.com, *.example.com, https://api.example.com:8443), or "workspace:*", or "workspace:" and a workspace\'s absolute path or glob.';

function invalid(source: string, at: string, reason: string, hint = VALUE_HINT): never {
  throw new ResonError("secrets_file_invalid", `${source} ${at}: ${reason}.`, {
    hint,
    details: { path: source, at },
  });
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
