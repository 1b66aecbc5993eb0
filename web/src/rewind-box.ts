// Rewinding a run from the page: "Rewind files…" asks the server what a rewind would change
// (a dry run), the page lists it (files someone changed since reson's last snapshot marked, as
// the terminal marks them) and rewinds only on a second click, which overwrites those files
// only when they were shown. Each tool call also lists the files it changed.
import { api } from "./api.js";
import { patchLines } from "./diff-lines.js";
import { diffBlock } from "./diff-view.js";
import { h } from "./dom.js";
import type { RunModel, ToolView } from "./run-state.js";

export interface RewindPlanView {
  changes: Array<{ path: string; change: string }>;
  conflicts: string[];
  untracked: string[];
  conversation: boolean;
  applied: boolean;
  rewindId: string | null;
}

export interface RewindView {
  state: "asking" | "working" | "done" | "failed";
  /** Rewinding to before this step; the whole run when absent. */
  toStep?: number;
  /** What the run (or the steps from toStep on) changed: what the rewind puts back. */
  patch?: string;
  plan?: RewindPlanView;
  message?: string;
}

interface Redraw {
  answered(): void;
}

const VERBS: Record<string, string> = {
  added: "restore",
  deleted: "remove",
  modified: "restore",
  mode: "mode",
  type: "restore",
};

async function ask(run: RunModel, redraw: Redraw, toStep?: number): Promise<void> {
  const scope = toStep === undefined ? {} : { toStep };
  run.rewind = { state: "working", ...scope, message: "Working out what the rewind would change…" };
  redraw.answered();
  try {
    const plan = await api<RewindPlanView>("POST", `/runs/${run.runId}/rewind`, { dryRun: true, ...scope });
    // The diff it would undo: the run's, or the steps' from toStep on (each step's, in order).
    const steps =
      toStep === undefined ? [undefined] : run.steps.filter((s) => s.step >= toStep).map((s) => s.step);
    const patches = await Promise.all(
      steps.map((step) =>
        api<{ patch: string }>(
          "GET",
          `/runs/${run.runId}/diff${step === undefined ? "" : `?step=${step}`}`,
        ).then(
          (d) => d.patch,
          () => "",
        ),
      ),
    );
    run.rewind = { state: "asking", ...scope, plan, patch: patches.join("") };
  } catch (error) {
    run.rewind = { state: "failed", message: String(error instanceof Error ? error.message : error) };
  }
  redraw.answered();
}

async function apply(run: RunModel, redraw: Redraw): Promise<void> {
  const plan = run.rewind?.plan;
  if (!plan) return;
  run.rewind = { state: "working", plan, message: "Rewinding…" };
  redraw.answered();
  try {
    const toStep = run.rewind?.toStep;
    const done = await api<RewindPlanView>("POST", `/runs/${run.runId}/rewind`, {
      force: plan.conflicts.length > 0,
      ...(toStep === undefined ? {} : { toStep }),
    });
    run.rewind = {
      state: "done",
      plan: done,
      message: `Rewound: ${done.changes.length} path${done.changes.length === 1 ? "" : "s"} put back (rewind ${done.rewindId}).`,
    };
  } catch (error) {
    run.rewind = { state: "failed", plan, message: String(error instanceof Error ? error.message : error) };
  }
  redraw.answered();
}

/** The button in the run's header (or a step's panel, with toStep): once the run has ended. */
export function rewindButton(run: RunModel, redraw: Redraw, toStep?: number): HTMLElement | null {
  if (!run.end || run.rewind?.state === "working") return null;
  if (toStep !== undefined)
    return h(
      "button",
      { type: "button", id: "rewind-step", click: () => void ask(run, redraw, toStep) },
      `Revert to before step ${toStep}…`,
    );
  return h(
    "button",
    { type: "button", id: "rewind-files", click: () => void ask(run, redraw) },
    "Revert this run…",
  );
}

/** What a rewind would do (or did), with the button that does it. */
export function rewindBox(run: RunModel, redraw: Redraw): HTMLElement | null {
  const view = run.rewind;
  if (!view) return null;
  const plan = view.plan;
  const conflicts = new Set(plan?.conflicts ?? []);
  const nothing = plan !== undefined && plan.changes.length === 0 && !plan.conversation;
  return h(
    "div",
    { class: "prompt", id: "rewind-plan" },
    view.message ? h("div", { class: view.state === "failed" ? "error" : "facts" }, view.message) : null,
    plan && view.state === "asking"
      ? h(
          "div",
          {},
          h(
            "div",
            {},
            nothing
              ? "Nothing to rewind: the files are as they were before this run."
              : view.toStep === undefined
                ? "The rewind puts back:"
                : `The rewind to before step ${view.toStep} puts back:`,
          ),
          h(
            "ul",
            { class: "facts" },
            ...plan.changes
              .slice(0, 50)
              .map((change) =>
                h(
                  "li",
                  conflicts.has(change.path) ? { class: "conflict" } : {},
                  `${VERBS[change.change] ?? "restore"} ${change.path}${conflicts.has(change.path) ? " — changed since reson's last snapshot: overwritten" : ""}`,
                ),
              ),
            plan.changes.length > 50 ? h("li", {}, `… and ${plan.changes.length - 50} more`) : null,
          ),
          plan.untracked.length > 0
            ? h("div", { class: "facts" }, `left as they are, not tracked: ${plan.untracked.join(", ")}`)
            : null,
          plan.conversation ? h("div", { class: "facts" }, "The conversation goes back too.") : null,
          view.patch
            ? h(
                "details",
                { class: "rewind-diff", open: "" },
                h("summary", {}, "The changes it undoes"),
                diffBlock(patchLines(view.patch), "the changes the rewind undoes"),
              )
            : null,
          h(
            "div",
            { class: "actions" },
            nothing
              ? null
              : h(
                  "button",
                  { class: "danger", id: "rewind-confirm", click: () => void apply(run, redraw) },
                  conflicts.size > 0
                    ? `Rewind, overwriting ${conflicts.size} changed file${conflicts.size === 1 ? "" : "s"}`
                    : "Rewind",
                ),
            h(
              "button",
              {
                click: () => {
                  run.rewind = undefined;
                  redraw.answered();
                },
              },
              nothing ? "Close" : "Cancel",
            ),
          ),
        )
      : null,
  );
}

/** The files a tool call changed (its files_changed event), in a line. */
export function changedFilesLine(tool: ToolView): HTMLElement | null {
  if (!tool.files || tool.files.total === 0) return null;
  const letters: Record<string, string> = { added: "A", modified: "M", deleted: "D", mode: "M", type: "T" };
  const listed = tool.files.files.map((file) => `${letters[file.change] ?? "M"} ${file.path}`).join(", ");
  const more =
    tool.files.total > tool.files.files.length
      ? ` and ${tool.files.total - tool.files.files.length} more`
      : "";
  return h("div", { class: "facts files-changed" }, `files changed: ${listed}${more}`);
}
