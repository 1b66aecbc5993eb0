// Naming a session or trace by the start of its ULID, as git does with commits: the prefix
// is read case-insensitively (with Crockford's I/L -> 1 and O -> 0) and must name exactly one.
import { ResonError } from "../core/errors.js";
import type { IdMatch, SessionRecord, TraceRecord } from "./types.js";

export const MIN_PREFIX_CHARS = 4;
const ULID_CHARS = 26;
const ALPHABET = /^[0-9A-HJKMNP-TV-Z]+$/;
/** Candidates listed in an ambiguity error, at most. */
const SHOWN = 10;

export type PrefixLookup = (
  lowest: string,
  highest: string,
  limit: number,
) => Promise<[SessionRecord[], TraceRecord[]]>;

function normalise(prefix: string): string {
  return prefix.trim().toUpperCase().replace(/[IL]/g, "1").replace(/O/g, "0");
}

function usage(message: string): ResonError {
  return new ResonError("usage_error", message, {
    hint: `Give at least ${MIN_PREFIX_CHARS} characters of a session or trace id (ids are ${ULID_CHARS} characters of 0-9 and A-Z).`,
  });
}

function oneLine(text: string, max = 60): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

export async function resolveIdPrefix(prefix: string, lookup: PrefixLookup): Promise<IdMatch> {
  const wanted = normalise(prefix);
  if (wanted.length < MIN_PREFIX_CHARS) {
    throw usage(`"${prefix.trim()}" is too short to name an id.`);
  }
  if (wanted.length > ULID_CHARS || !ALPHABET.test(wanted)) {
    throw usage(`"${prefix.trim()}" is not an id or the start of one.`);
  }
  const [sessions, traces] = await lookup(wanted, wanted.padEnd(ULID_CHARS, "Z"), SHOWN + 1);
  const matches: IdMatch[] = [
    ...sessions.map((session): IdMatch => ({ kind: "session", session })),
    ...traces.map((trace): IdMatch => ({ kind: "trace", trace })),
  ];
  const [only] = matches;
  if (matches.length === 1 && only) return only;
  if (matches.length === 0) {
    throw new ResonError("not_found", `No session or trace id starts with ${wanted}.`, {
      hint: "Check the id; list sessions to see the ids there are.",
      details: { prefix: wanted },
    });
  }
  const candidates = matches
    .slice(0, SHOWN)
    .map((match) =>
      match.kind === "session"
        ? { kind: "session", id: match.session.id, label: oneLine(match.session.title) }
        : { kind: "trace", id: match.trace.id, label: oneLine(match.trace.task) },
    );
  const count = matches.length > SHOWN ? `more than ${SHOWN}` : String(matches.length);
  const listing = candidates.map((c) => `  ${c.kind} ${c.id}  ${c.label}`).join("\n");
  throw new ResonError("ambiguous_id", `${wanted} is the start of ${count} ids:\n${listing}`, {
    hint: "Give more characters of the id.",
    details: { prefix: wanted, candidates },
  });
}
