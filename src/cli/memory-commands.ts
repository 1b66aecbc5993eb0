// `reson memory` and `reson experiences`: what reson remembers of a project and the rules it
// learnt, to read, search, correct and forget. Forgetting reaches every derivative (text
// index, vectors, cached embeddings, summaries); retiring a rule stops it being shown.
import { realpathSync } from "node:fs";
import { resolve } from "node:path";
import { ResonError } from "../core/errors.js";
import { ulid } from "../core/ids.js";
import {
  estimateUplift,
  searchMemory,
  UPLIFT_MIN_SHOWN_RUNS,
  UPLIFT_MIN_WITHHELD_RUNS,
  type UpliftEstimate,
} from "../memory/index.js";
import {
  type Experience,
  type ExperienceStatus,
  type MemoryItemRecord,
  parseDuration,
  projectKey,
  type Store,
} from "../store/index.js";
import { didYouMean } from "./did-you-mean.js";
import { EXIT_OK, EXIT_USAGE } from "./exit-codes.js";
import { formatAgo, table } from "./format.js";
import { reportError } from "./run-command.js";
import { withStore } from "./store-commands.js";
import { outsideText } from "./terminal-text.js";
import { workspaceFolderArg } from "./workspace-choice.js";

type Values = Record<string, string | boolean | undefined>;

const MEMORY_USAGE =
  "Usage: reson memory list [-n N] | search <query> | show <id> | edit <id> <text> | forget <id...> | forget --before <30d|date> [--json] [-w dir]";
const EXPERIENCES_USAGE =
  "Usage: reson experiences list [--status candidate|active|retired] | show <id> | retire <id> | confirm <id> [--json] [-w dir]";

async function projectOf(values: Values): Promise<string> {
  const dir = await workspaceFolderArg(typeof values.workspace === "string" ? values.workspace : undefined);
  try {
    return projectKey(realpathSync(resolve(dir)));
  } catch {
    throw new ResonError("workspace_invalid", `The workspace folder ${dir} does not exist.`);
  }
}

function clip(text: string, max: number): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`;
}

function itemRows(items: readonly MemoryItemRecord[]): string {
  if (items.length === 0) return "Nothing remembered for this project yet.";
  return table([
    ["ID", "WHEN", "WHO", "TEXT"],
    ...items.map((item) => [item.id, formatAgo(item.createdAt), item.role ?? item.kind, clip(item.text, 90)]),
  ]);
}

function write(values: Values, records: readonly unknown[], human: () => string): void {
  if (values.json) for (const record of records) process.stdout.write(`${JSON.stringify(record)}\n`);
  // What reson remembers was written by the model: shown safely on a terminal.
  else process.stdout.write(`${outsideText(process.stdout)(human())}\n`);
}

/** A memory item of this project by id (or a unique prefix among the recent ones). */
async function itemOf(store: Store, key: string, id: string): Promise<MemoryItemRecord> {
  const exact = await store.memory.get(id);
  if (exact && exact.projectKey === key) return exact;
  const recent = await store.memory.getRecent({ projectKey: key, limit: 10_000 });
  const matches = recent.filter((item) => item.id.toLowerCase().startsWith(id.toLowerCase()));
  if (matches.length === 1) return matches[0]!;
  throw new ResonError(
    matches.length === 0 ? "not_found" : "ambiguous_id",
    matches.length === 0
      ? `No memory ${id} in this project.`
      : `${id} names ${matches.length} memories; give more of the id.`,
    { hint: "`reson memory list` shows the ids." },
  );
}

async function experienceOf(store: Store, key: string, id: string): Promise<Experience> {
  const all = await store.experiences.list({ projectKey: key, limit: 100_000 });
  const matches = all.filter((experience) => experience.id.toLowerCase().startsWith(id.toLowerCase()));
  if (matches.length === 1) return matches[0]!;
  throw new ResonError(
    matches.length === 0 ? "not_found" : "ambiguous_id",
    matches.length === 0
      ? `No experience ${id} in this project.`
      : `${id} names ${matches.length} experiences; give more of the id.`,
    { hint: "`reson experiences list` shows the ids." },
  );
}

const COMMON = { workspace: { type: "string", short: "w" }, json: { type: "boolean" } } as const;

export function memoryCommand(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  const subcommands = ["list", "search", "show", "edit", "forget"];
  if (!sub || !subcommands.includes(sub)) {
    reportError(
      new ResonError(
        "usage_error",
        `Unknown memory command ${JSON.stringify(sub ?? "")}.${didYouMean(sub ?? "", subcommands)}`,
        {
          hint: MEMORY_USAGE,
        },
      ),
    );
    return Promise.resolve(EXIT_USAGE);
  }
  const options = { ...COMMON, limit: { type: "string", short: "n" }, before: { type: "string" } } as const;
  return withStore(rest, options, async (store, values, positionals) => {
    const key = await projectOf(values);
    switch (sub) {
      case "list": {
        const limit = values.limit === undefined ? 20 : Number(values.limit);
        if (!Number.isInteger(limit) || limit < 1)
          throw new ResonError("usage_error", "-n must be a whole number.");
        const items = await store.memory.getRecent({ projectKey: key, limit });
        write(values, items, () => itemRows(items));
        return EXIT_OK;
      }
      case "search": {
        const query = positionals.join(" ").trim();
        if (!query) throw new ResonError("usage_error", "No query given.", { hint: MEMORY_USAGE });
        const found = await searchMemory({ store, query, projectKey: key, limit: 10 });
        write(values, found.hits, () => itemRows(found.hits.map((hit) => hit.item)));
        return EXIT_OK;
      }
      case "show": {
        const item = await itemOf(store, key, positionals[0] ?? "");
        write(values, [item], () =>
          [
            `${item.id}  ${new Date(item.createdAt).toISOString()}  ${item.role ?? item.kind} (${item.provenance})`,
            `session ${item.sessionId ?? "-"}  run ${item.traceId ?? "-"}`,
            "",
            item.text,
          ].join("\n"),
        );
        return EXIT_OK;
      }
      case "edit": {
        const [id, ...words] = positionals;
        const text = words.join(" ").trim();
        if (!id || !text)
          throw new ResonError("usage_error", "Give the id and the new text.", { hint: MEMORY_USAGE });
        const item = await itemOf(store, key, id);
        // An item's text feeds its index and vectors: the corrected one replaces it whole.
        await store.memory.forget([item.id]);
        const edited = { ...item, id: ulid(), text, provenance: "user" as const };
        await store.memory.appendItems([edited]);
        write(values, [edited], () => `Replaced ${item.id} with ${edited.id}.`);
        return EXIT_OK;
      }
      default: {
        if (typeof values.before === "string") {
          const cutoff = cutoffOf(values.before);
          const report = await store.memory.evictBefore(cutoff, { projectKey: key });
          write(
            values,
            [report],
            () =>
              `Forgot ${report.items} memories before ${new Date(cutoff).toISOString()} (${report.embeddings} vectors, ${report.cacheEntries} cached embeddings).`,
          );
          return EXIT_OK;
        }
        if (positionals.length === 0)
          throw new ResonError("usage_error", "Name the memories to forget, or --before.", {
            hint: MEMORY_USAGE,
          });
        const ids: string[] = [];
        for (const id of positionals) ids.push((await itemOf(store, key, id)).id);
        const report = await store.memory.forget(ids);
        write(
          values,
          [report],
          () =>
            `Forgot ${report.items} memories (${report.embeddings} vectors, ${report.cacheEntries} cached embeddings).`,
        );
        return EXIT_OK;
      }
    }
  });
}

/** "30d", "12h" (that long ago) or an ISO date. */
function cutoffOf(text: string): number {
  if (/^\d+[smhdw]$/.test(text)) return Date.now() - parseDuration(text);
  const at = Date.parse(text);
  if (Number.isNaN(at))
    throw new ResonError(
      "usage_error",
      `--before takes a duration such as 30d or a date, not ${JSON.stringify(text)}.`,
    );
  return at;
}

function experienceRows(experiences: readonly Experience[], status?: ExperienceStatus): string {
  if (experiences.length === 0)
    return status
      ? `No ${status} experiences for this project (\`reson experiences list\` shows them all).`
      : "No experiences for this project yet.";
  return table([
    ["ID", "STATUS", "USED", "HELPED", "RATE", "RULE"],
    ...experiences.map((experience) => [
      experience.id,
      experience.status + (experience.provenance === "untrusted" ? " (untrusted)" : ""),
      String(experience.usageCount),
      `${experience.successCount}/${experience.successCount + experience.failureCount}`,
      `${Math.round(experience.successRate * 100)}%`,
      clip(`when ${experience.condition}: ${experience.rule}`, 80),
    ]),
  ]);
}

const percent = (value: number) => `${Math.round(value * 100)} %`;
const points = (value: number) => `${value >= 0 ? "+" : "−"}${Math.abs(Math.round(value * 100))}`;

/** The holdout comparison in words: rates with and without the rule, the uplift and its interval. */
function upliftLines(uplift: UpliftEstimate): string[] {
  const withheld = `withheld from ${uplift.withheldRuns} matching runs (memory.holdout)`;
  if (uplift.withheldRuns === 0) return [`${withheld}: no uplift estimate yet`];
  const verdict =
    uplift.shownRuns < UPLIFT_MIN_SHOWN_RUNS || uplift.withheldRuns < UPLIFT_MIN_WITHHELD_RUNS
      ? `too few runs to judge (${UPLIFT_MIN_SHOWN_RUNS} shown and ${UPLIFT_MIN_WITHHELD_RUNS} withheld needed)`
      : uplift.high <= 0
        ? "credibly does not help: it retires"
        : uplift.low > 0
          ? "credibly helps"
          : "not yet clear";
  return [
    `${withheld}: success with the rule ${percent(uplift.shownRate)}, without ${percent(uplift.withheldRate)}`,
    `uplift ${points(uplift.uplift)} points (${Math.round(uplift.level * 100)} % interval ${points(uplift.low)} to ${points(uplift.high)}): ${verdict}`,
  ];
}

export function experiencesCommand(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  const subcommands = ["list", "show", "retire", "confirm"];
  if (!sub || !subcommands.includes(sub)) {
    reportError(
      new ResonError(
        "usage_error",
        `Unknown experiences command ${JSON.stringify(sub ?? "")}.${didYouMean(sub ?? "", subcommands)}`,
        {
          hint: EXPERIENCES_USAGE,
        },
      ),
    );
    return Promise.resolve(EXIT_USAGE);
  }
  const options = { ...COMMON, status: { type: "string" } } as const;
  return withStore(rest, options, async (store, values, positionals) => {
    const key = await projectOf(values);
    if (sub === "list") {
      const status = values.status as ExperienceStatus | undefined;
      if (status !== undefined && !["candidate", "active", "retired"].includes(status))
        throw new ResonError("usage_error", "--status is candidate, active or retired.");
      const experiences = await store.experiences.list({
        projectKey: key,
        ...(status ? { status } : {}),
        limit: 500,
      });
      write(values, experiences, () => experienceRows(experiences, status));
      return EXIT_OK;
    }
    const experience = await experienceOf(store, key, positionals[0] ?? "");
    if (sub === "show") {
      const uses = await Promise.all(
        experience.evidence.map(
          (item) =>
            `  ${new Date(item.at).toISOString()}  ${item.outcome}  run ${item.traceId}  ${item.note}`,
        ),
      );
      const uplift = estimateUplift(experience);
      write(values, [{ ...experience, uplift }], () =>
        [
          `${experience.id}  ${experience.status}  (${experience.provenance}; votes ${experience.votes})`,
          `when: ${experience.condition}`,
          `rule: ${experience.rule}`,
          `keys: ${experience.keys.length > 0 ? experience.keys.join("; ") : "(none)"}`,
          `shown in ${experience.usageCount} runs: ${experience.successCount} succeeded, ${experience.failureCount} failed (rate ${Math.round(experience.successRate * 100)} %)`,
          ...upliftLines(uplift),
          "evidence:",
          ...uses,
        ].join("\n"),
      );
      return EXIT_OK;
    }
    if (sub === "retire") {
      await store.experiences.retire(experience.id);
      write(
        values,
        [{ id: experience.id, status: "retired" }],
        () => `Retired ${experience.id}: it is no longer shown.`,
      );
      return EXIT_OK;
    }
    // confirm: the user vouches for a rule (also one learnt from untrusted content).
    await store.experiences.update(experience.id, { status: "active" });
    write(
      values,
      [{ id: experience.id, status: "active" }],
      () => `Confirmed ${experience.id}: it is shown from the next run on.`,
    );
    return EXIT_OK;
  });
}
