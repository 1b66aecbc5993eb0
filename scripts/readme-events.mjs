// README's table of the events `reson run --json` prints and serve streams, written from the one
// event schema (src/core/events.ts), so the list cannot miss an event or a field. `npm run
// readme:events` rewrites the table between its markers after `npm run build`;
// test/scripts/readme-events.test.ts fails when README and the schema differ.
import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

export const BEGIN = "<!-- events: generated from src/core/events.ts by npm run readme:events -->";
export const END = "<!-- events: end -->";

/** Fields every event has; the table lists each event's own. */
const COMMON = new Set(["type", "runId", "step", "ts"]);

/** `a`, `b` or `c` for a union of string literals; undefined for anything else. */
function literals(schema) {
  const members = schema.anyOf ?? (schema.const !== undefined ? [schema] : undefined);
  if (!members?.every((member) => typeof member.const === "string")) return undefined;
  return members.map((member) => `\`${member.const}\``).join(" \\| ");
}

function field(name, schema, required) {
  const values = literals(schema);
  return `\`${name}\`${required ? "" : "?"}${values ? ` (${values})` : ""}`;
}

/** The Markdown table of `eventUnion` (ResonEventSchema), one row per event type, in its order. */
export function eventTable(eventUnion) {
  const rows = eventUnion.anyOf.map((event) => {
    const required = new Set(event.required ?? []);
    const own = Object.entries(event.properties)
      .filter(([name]) => !COMMON.has(name))
      .map(([name, schema]) => field(name, schema, required.has(name)));
    const description = (event.description ?? "").replaceAll("|", "\\|").replaceAll("\n", " ");
    return `| \`${event.properties.type.const}\` | ${description} | ${own.join(", ") || "—"} |`;
  });
  return ["| type | when | its own fields (`?`: not always there) |", "| --- | --- | --- |", ...rows].join("\n");
}

/** `readme` with the text between the markers replaced by `table`. */
export function withEventTable(readme, table) {
  const begin = readme.indexOf(BEGIN);
  const end = readme.indexOf(END);
  if (begin < 0 || end < begin) throw new Error(`README.md has no ${BEGIN} … ${END} block`);
  return `${readme.slice(0, begin + BEGIN.length)}\n${table}\n${readme.slice(end)}`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { ResonEventSchema } = await import("../dist/core/events.js");
  const path = fileURLToPath(new URL("../README.md", import.meta.url));
  const before = readFileSync(path, "utf8");
  const after = withEventTable(before, eventTable(ResonEventSchema));
  if (after !== before) writeFileSync(path, after);
  console.log(after === before ? "README.md: the event table is up to date" : "README.md: event table rewritten");
}
