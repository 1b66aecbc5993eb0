// `reson diff` and `reson rewind`: what a run changed in its workspace, and the workspace (and
// the conversation) put back as it was before the run or one of its steps, from the snapshots
// reson took. A rewind shows what it will do and asks first (or takes --yes); files someone
// changed since reson's last snapshot are overwritten only after a yes to that, or --force.
import { realpath } from "node:fs/promises";
import { createInterface } from "node:readline/promises";
import {
  applyRewind,
  conflictError,
  describeRewind,
  prepareRewind,
  rewindChangesNothing,
  runDiff,
} from "../agent/index.js";
import { ResonError } from "../core/errors.js";
import { patchText } from "../snapshots/index.js";
import { EXIT_OK, EXIT_USAGE } from "./exit-codes.js";
import { printable } from "./file-diff.js";
import { withStore } from "./store-commands.js";
import { printableLines } from "./terminal-text.js";
import { workspaceFolderArg } from "./workspace-choice.js";

function stepArg(value: unknown, flag: string): number | undefined {
  if (value === undefined) return undefined;
  const step = Number(value);
  if (!Number.isInteger(step) || step < 1)
    throw new ResonError(
      "usage_error",
      `${flag} takes a step number (1 or more), not ${JSON.stringify(value)}.`,
    );
  return step;
}

/** The workspace a command without an id works on: -w, $RESON_WORKSPACE or the current folder. */
async function workspaceArg(value: unknown): Promise<string> {
  return realpath(await workspaceFolderArg(typeof value === "string" ? value : undefined));
}

const LETTERS: Record<string, string> = { added: "A", modified: "M", deleted: "D", mode: "M", type: "T" };

function colored(patch: string): string {
  return patch
    .split("\n")
    .map((line) => {
      if (line.startsWith("+++") || line.startsWith("---") || line.startsWith("diff --git"))
        return `\u001b[1m${line}\u001b[0m`;
      if (line.startsWith("+")) return `\u001b[32m${line}\u001b[0m`;
      if (line.startsWith("-")) return `\u001b[31m${line}\u001b[0m`;
      if (line.startsWith("@@")) return `\u001b[36m${line}\u001b[0m`;
      return line;
    })
    .join("\n");
}

export function diffCommand(argv: string[]): Promise<number> {
  const options = {
    step: { type: "string" },
    stat: { type: "boolean" },
    json: { type: "boolean" },
    workspace: { type: "string", short: "w" },
  } as const;
  return withStore(argv, options, async (store, values, positionals) => {
    const id = positionals[0];
    const step = stepArg(values.step, "--step");
    const diff = await runDiff(store, {
      ...(id ? { id } : { workspace: await workspaceArg(values.workspace) }),
      ...(step === undefined ? {} : { step }),
    });
    const what = `run ${diff.run.id}${step === undefined ? "" : ` step ${step}`}`;
    if (values.json) {
      const changes = diff.changes.map(({ path, change, before, after }) => ({
        path,
        change,
        ...(before
          ? {
              before: {
                kind: before.kind,
                mode: before.mode,
                size: before.size,
                ...(before.reason ? { reason: before.reason } : {}),
              },
            }
          : {}),
        ...(after
          ? {
              after: {
                kind: after.kind,
                mode: after.mode,
                size: after.size,
                ...(after.reason ? { reason: after.reason } : {}),
              },
            }
          : {}),
      }));
      process.stdout.write(
        `${JSON.stringify({ runId: diff.run.id, workspace: diff.workspace, step: step ?? null, changes })}\n`,
      );
      return EXIT_OK;
    }
    if (diff.changes.length === 0) {
      process.stderr.write(`No files changed in ${what}.\n`);
      return EXIT_OK;
    }
    if (values.stat) {
      for (const change of diff.changes) {
        const entry = change.after ?? change.before;
        const letter = entry?.kind === "excluded" ? "X" : LETTERS[change.change];
        process.stdout.write(`${letter}\t${printable(change.path)}\n`);
      }
    } else {
      const patch = await patchText(diff.store.objects, diff.changes);
      // The files' lines are outside text: on a terminal they cannot steer it (names are quoted in the patch).
      process.stdout.write(process.stdout.isTTY ? colored(printableLines(patch)) : patch);
    }
    process.stderr.write(
      `${diff.changes.length} path${diff.changes.length === 1 ? "" : "s"} changed in ${what}, in ${diff.workspace}.\n`,
    );
    return EXIT_OK;
  });
}

async function ask(question: string): Promise<boolean> {
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    return /^y(es)?$/i.test((await rl.question(question)).trim());
  } finally {
    rl.close();
  }
}

export function rewindCommand(argv: string[]): Promise<number> {
  const options = {
    "to-step": { type: "string" },
    "files-only": { type: "boolean" },
    yes: { type: "boolean", short: "y" },
    force: { type: "boolean" },
    undo: { type: "boolean" },
    "dry-run": { type: "boolean" },
    json: { type: "boolean" },
    workspace: { type: "string", short: "w" },
  } as const;
  return withStore(argv, options, async (store, values, positionals) => {
    const id = positionals[0];
    const toStep = stepArg(values["to-step"], "--to-step");
    if (values.undo && (toStep !== undefined || values["files-only"]))
      throw new ResonError(
        "usage_error",
        "--undo puts back what the latest rewind changed; it takes no --to-step or --files-only.",
      );
    const prepared = await prepareRewind(store, {
      ...(id ? { id } : { workspace: await workspaceArg(values.workspace) }),
      ...(toStep === undefined ? {} : { toStep }),
      ...(values["files-only"] ? { filesOnly: true } : {}),
      ...(values.undo ? { undo: true } : {}),
    });
    const { plan } = prepared;
    const say = (line: string) => {
      if (!values.json) process.stdout.write(`${line}\n`);
    };
    const report = (applied: boolean) => {
      if (!values.json) return;
      const changes = plan.changes.map(({ path, change }) => ({ path, change }));
      const untracked = plan.untracked.map(({ path }) => path);
      process.stdout.write(
        `${JSON.stringify({ rewindId: prepared.id, applied, changes, conflicts: plan.conflicts, untracked, conversation: prepared.conversation !== undefined, completed: prepared.completed })}\n`,
      );
    };
    for (const line of describeRewind(prepared, printable)) say(line);
    if (rewindChangesNothing(prepared)) {
      say("Nothing to do.");
      report(false);
      return EXIT_OK;
    }
    if (values["dry-run"]) {
      report(false);
      return EXIT_OK;
    }
    const conflicted = plan.conflicts.length > 0;
    if (values.yes) {
      if (conflicted && !values.force) throw conflictError(plan.conflicts);
    } else {
      if (!process.stdin.isTTY)
        throw new ResonError("usage_error", "A rewind needs a confirmation.", {
          hint: "Add --yes to confirm (nothing asks here: standard input is not a terminal); --dry-run only shows it.",
        });
      const question = conflicted
        ? `Overwrite the ${plan.conflicts.length} changed file${plan.conflicts.length === 1 ? "" : "s"} marked ! and rewind? [y/N] `
        : "Rewind? [y/N] ";
      if (!(await ask(question))) {
        say("Not confirmed; nothing was changed.");
        return EXIT_USAGE;
      }
    }
    const result = await applyRewind(store, prepared, { force: conflicted });
    say(
      `Done (${result.operations} change${result.operations === 1 ? "" : "s"} to files and folders). ` +
        "`reson rewind --undo` puts it back.",
    );
    report(true);
    return EXIT_OK;
  });
}
