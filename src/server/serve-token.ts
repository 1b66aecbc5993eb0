// The bearer token of `reson serve`: RESON_SERVE_TOKEN, else a --token-file, else
// $RESON_HOME/serve-token, created on first start (32 random bytes, base64url, mode 0600).
// Only the first two count as configured: a token nobody chose does not open a public bind.
import { randomBytes } from "node:crypto";
import { link, mkdir, open, readFile, stat, unlink } from "node:fs/promises";
import { join } from "node:path";
import { throwIfAborted } from "../core/abort.js";
import { ResonError } from "../core/errors.js";

export type ServeTokenSource = "env" | "token-file" | "home";

export interface ServeToken {
  /** The secret itself: never log it, never put it in an error. */
  value: string;
  source: ServeTokenSource;
  /** The file it came from (token-file, home). */
  path?: string;
  /** True when this start created it, so the caller says where it is (never the value). */
  created: boolean;
}

export interface LoadServeTokenOptions {
  /** $RESON_HOME. */
  home: string;
  env?: NodeJS.ProcessEnv;
  /** --token-file. */
  tokenFile?: string;
  signal?: AbortSignal;
}

export const SERVE_TOKEN_FILE = "serve-token";
/** A configured token shorter than this is refused: it would be guessable. */
export const MIN_TOKEN_LENGTH = 32;
const MAKE_ONE = "Make one with: openssl rand -base64 32";

/** True when the operator chose the token (env or --token-file), not when reson made it up. */
export function isConfiguredToken(token: ServeToken): boolean {
  return token.source !== "home";
}

export async function loadServeToken(options: LoadServeTokenOptions): Promise<ServeToken> {
  throwIfAborted(options.signal);
  const fromEnv = options.env?.RESON_SERVE_TOKEN?.trim();
  if (fromEnv) return { value: checkedToken(fromEnv, "RESON_SERVE_TOKEN"), source: "env", created: false };
  if (options.tokenFile !== undefined) {
    const value = await readTokenFile(options.tokenFile);
    return { value, source: "token-file", path: options.tokenFile, created: false };
  }
  const path = join(options.home, SERVE_TOKEN_FILE);
  const created = await createTokenFile(options.home, path, options.signal);
  if (created) return { value: created, source: "home", path, created: true };
  return { value: await readTokenFile(path), source: "home", path, created: false };
}

/**
 * The token this machine's `reson serve` answers to, for a `reson worker` beside it to mask in
 * the runs it executes (it never makes one): RESON_SERVE_TOKEN, else $RESON_HOME's token file if
 * there is one and it can be read. A serve given --token-file elsewhere is not known here.
 */
export async function existingServeToken(home: string, env: NodeJS.ProcessEnv): Promise<string | undefined> {
  const fromEnv = env.RESON_SERVE_TOKEN?.trim();
  if (fromEnv) return fromEnv;
  try {
    return (await readFile(join(home, SERVE_TOKEN_FILE), "utf8")).trim() || undefined;
  } catch {
    return undefined;
  }
}

function checkedToken(value: string, where: string): string {
  if (value.length < MIN_TOKEN_LENGTH || /\s/.test(value)) {
    throw new ResonError(
      "usage_error",
      `The serve token in ${where} is too weak: it needs at least ${MIN_TOKEN_LENGTH} characters and no spaces.`,
      { hint: MAKE_ONE },
    );
  }
  return value;
}

async function readTokenFile(path: string): Promise<string> {
  let mode: number;
  try {
    mode = (await stat(path)).mode;
  } catch (error) {
    throw new ResonError("usage_error", `Cannot read the serve token file ${path}.`, {
      hint: `Check the path, or create it: umask 077; openssl rand -base64 32 > ${path}`,
      cause: error,
    });
  }
  // Like secrets.json: a token others on the machine can read is no secret.
  if ((mode & 0o077) !== 0) {
    throw new ResonError(
      "usage_error",
      `The serve token file ${path} can be read by other users (mode ${(mode & 0o777).toString(8)}).`,
      { hint: `Run: chmod 600 ${path}` },
    );
  }
  return checkedToken((await readFile(path, "utf8")).trim(), path);
}

/**
 * Creates the token file if there is none and returns the new token, or undefined when it
 * already existed. The content is complete before the name appears (link of a finished
 * temporary file), so two servers starting at once agree on one token.
 */
async function createTokenFile(
  home: string,
  path: string,
  signal?: AbortSignal,
): Promise<string | undefined> {
  await mkdir(home, { recursive: true, mode: 0o700 });
  try {
    await stat(path);
    return undefined;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  }
  throwIfAborted(signal);
  const value = randomBytes(32).toString("base64url");
  const temp = join(home, `.${SERVE_TOKEN_FILE}.${randomBytes(6).toString("hex")}.tmp`);
  const handle = await open(temp, "wx", 0o600);
  try {
    await handle.writeFile(`${value}\n`);
    await handle.sync();
  } finally {
    await handle.close();
  }
  try {
    await link(temp, path);
    return value;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return undefined;
    throw error;
  } finally {
    await unlink(temp).catch(() => {});
  }
}
