// RESON_DATABASE_URL as reson shows it: checked to be a PostgreSQL URL, and never with its
// password, which must not reach `location`, errors, logs or traces.
import { ResonError } from "../../core/errors.js";

const SECRET_PARAMS = ["password", "sslpassword"];

export interface DatabaseUrl {
  /** The URL without any password, safe to show. */
  shown: string;
  /** Removes the password from a driver message, in case one ever repeats it. */
  scrub(message: string): string;
}

export function parseDatabaseUrl(url: string): DatabaseUrl {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw notPostgres("a value that is not a URL");
  }
  if (parsed.protocol !== "postgres:" && parsed.protocol !== "postgresql:") {
    throw notPostgres(`a ${parsed.protocol.replace(/:$/, "")} URL`);
  }
  const secrets = new Set<string>();
  if (parsed.password) {
    secrets.add(parsed.password);
    secrets.add(decodeURIComponent(parsed.password));
    parsed.password = "";
  }
  for (const key of SECRET_PARAMS) {
    for (const value of parsed.searchParams.getAll(key)) secrets.add(value);
    parsed.searchParams.delete(key);
  }
  // Very short strings would blank out ordinary words; such passwords are not worth hiding twice.
  const hidden = [...secrets].filter((secret) => secret.length >= 4);
  return {
    shown: parsed.toString(),
    scrub: (message) => hidden.reduce((text, secret) => text.split(secret).join("***"), message),
  };
}

function notPostgres(what: string): ResonError {
  return new ResonError("config_invalid", `RESON_DATABASE_URL is ${what}, not a postgres:// URL.`, {
    hint: "Set RESON_DATABASE_URL=postgres://user:password@host:5432/database, or unset it to use the SQLite file in RESON_HOME.",
  });
}
