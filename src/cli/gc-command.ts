// `reson gc --older-than <age>`: removes runs that ended before then, with their steps,
// checkpoints, artifacts, events and workspace snapshots, the sessions left empty, and chat
// messages settled then (kept at least a day: their rows stop a redelivery running again). What
// would go is said first; in a terminal reson asks, `--yes` removes without asking (scripts),
// `--dry-run` only says.
// Without a terminal and without --yes nothing is removed: data that is gone is gone.

import { pruneSnapshots } from "../agent/index.js";
import { resonHome } from "../config/index.js";
import { ResonError } from "../core/errors.js";
import type { GcReport, Store } from "../store/index.js";
import { parseDuration } from "../store/index.js";
import { confirm } from "./confirm.js";
import { EXIT_OK } from "./exit-codes.js";
import { countOf, formatBytes } from "./format.js";
import { withStore } from "./store-commands.js";

const USAGE = "Usage: reson gc --older-than <30d|12h> [--dry-run | --yes]";

/** "3 runs (40 steps, 3 checkpoints, 1 artifact), 2 sessions, 12 turns and 5 channel messages". */
function describe(report: GcReport): string {
  return (
    `${countOf(report.traces, "run")} (${countOf(report.steps, "step")}, ${countOf(report.checkpoints, "checkpoint")}, ` +
    `${countOf(report.artifacts, "artifact")}), ${countOf(report.sessions, "session")}, ${countOf(report.turns, "turn")} ` +
    `and ${countOf(report.channelMessages, "channel message")}`
  );
}

async function remove(store: Store, before: number, age: string): Promise<number> {
  const sizeBefore = await store.sizeBytes();
  const report = await store.gc(before);
  const sizeAfter = await store.sizeBytes();
  process.stdout.write(
    `removed ${describe(report)} older than ${age}; ${store.location}: ${formatBytes(sizeBefore)} -> ${formatBytes(sizeAfter)}\n`,
  );
  // The workspace snapshots of the runs that went (and of runs gone before).
  const snapshots = await pruneSnapshots(store, resonHome());
  process.stdout.write(
    `removed the workspace snapshots of ${countOf(snapshots.runs, "run")} (${formatBytes(snapshots.bytesRemoved)})\n`,
  );
  return EXIT_OK;
}

export function gcCommand(argv: string[]): Promise<number> {
  const options = {
    "older-than": { type: "string" },
    "dry-run": { type: "boolean" },
    yes: { type: "boolean", short: "y" },
  } as const;
  return withStore(
    argv,
    options,
    async (store, values) => {
      const age = values["older-than"];
      if (typeof age !== "string")
        throw new ResonError("usage_error", "Say how old data must be to go.", { hint: USAGE });
      if (values["dry-run"] && values.yes)
        throw new ResonError(
          "usage_error",
          "--dry-run removes nothing and --yes removes without asking: give one.",
          {
            hint: USAGE,
          },
        );
      const before = Date.now() - parseDuration(age);
      const preview = await store.gcPreview(before);
      if (preview.traces === 0 && preview.sessions === 0 && preview.channelMessages === 0) {
        process.stdout.write(
          `Nothing to remove: no run in ${store.location} ended, and no chat message was settled, more than ` +
            `${age} ago (a chat message stays a day at least, so a redelivery of it is still recognised).\n`,
        );
        return EXIT_OK;
      }
      const what = `${describe(preview)} older than ${age} (ended before ${new Date(before).toISOString()})`;
      if (values["dry-run"]) {
        process.stdout.write(`would remove ${what} from ${store.location}; nothing removed (--dry-run).\n`);
        return EXIT_OK;
      }
      if (values.yes) return remove(store, before, age);
      if (process.stdin.isTTY !== true)
        throw new ResonError(
          "usage_error",
          `reson gc would remove ${what}, and there is no terminal to ask.`,
          {
            hint: "Pass --yes to remove them without asking (scripts), or --dry-run to only see what would go.",
          },
        );
      process.stdout.write(`This removes ${what} from ${store.location}, for good.\n`);
      if (!(await confirm("Remove them?"))) {
        process.stdout.write("Nothing removed.\n");
        return EXIT_OK;
      }
      return remove(store, before, age);
    },
    false,
  );
}
