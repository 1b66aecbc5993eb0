// The side panel of a run: the call selected in the waterfall, whole. A model call: its
// timing, tokens, cost, stop reason, how full its context was and what the model saw (the
// context manifest's sections), the goal it served, what it said or is streaming; a tool call: its
// arguments, the permission decision, what it returned in both memory layers (the output and
// the long-term line later steps see), the files it changed. For a step of a
// finished run: the diff it made (from its snapshots) and the revert to before it.
import { api } from "./api.js";
import { patchLines } from "./diff-lines.js";
import { diffBlock } from "./diff-view.js";
import { cost, duration, h, tokens } from "./dom.js";
import { permissionLine } from "./permission-line.js";
import { changedFilesLine, rewindButton } from "./rewind-box.js";
import type { GoalView, RunModel, StepView, ToolView } from "./run-state.js";
import type { Selection } from "./timeline.js";

export interface PanelActions {
  answered(): void;
}

/** Diffs read for a step, by "run:step": read once, on request. */
const stepDiffs = new Map<
  string,
  { state: "reading" | "read" | "failed"; patch?: string; message?: string }
>();

function facts(rows: Array<[string, string | Node | null | undefined]>): HTMLElement {
  return h(
    "dl",
    { class: "facts-list" },
    ...rows
      .filter(([, value]) => value !== null && value !== undefined && value !== "")
      .flatMap(([name, value]) => [h("dt", {}, name), h("dd", {}, value!)]),
  );
}

function stepDiff(run: RunModel, step: number, actions: PanelActions): HTMLElement {
  const key = `${run.runId}:${step}`;
  const read = stepDiffs.get(key);
  if (!read)
    return h(
      "button",
      {
        type: "button",
        id: "step-diff",
        click: () => {
          stepDiffs.set(key, { state: "reading" });
          actions.answered();
          void api<{ patch: string }>("GET", `/runs/${run.runId}/diff?step=${step}`)
            .then(
              (diff) => stepDiffs.set(key, { state: "read", patch: diff.patch }),
              (error: unknown) =>
                stepDiffs.set(key, {
                  state: "failed",
                  message: String(error instanceof Error ? error.message : error),
                }),
            )
            .finally(actions.answered);
        },
      },
      `Show what step ${step} changed`,
    );
  if (read.state === "reading") return h("p", { class: "facts" }, "Reading the step's snapshots…");
  if (read.state === "failed") return h("p", { class: "error" }, read.message ?? "");
  if (!read.patch) return h("p", { class: "facts", id: "step-diff-none" }, `Step ${step} changed no file.`);
  return diffBlock(patchLines(read.patch), `what step ${step} changed`);
}

function modelPanel(run: RunModel, step: StepView, actions: PanelActions): HTMLElement[] {
  const now = Date.now();
  const firstTool = Math.min(...step.tools.map((t) => t.startedAt));
  const end = Number.isFinite(firstTool) ? firstTool : (step.endedAt ?? now);
  const goal =
    (step.goalId ? run.goalList.get(step.goalId) : undefined) ??
    [...run.goalList.values()].find((g) => g.steps.includes(step.step));
  const manifest = step.manifest;
  const live = run.live?.step === step.step ? run.live : undefined;
  return [
    h("h2", {}, `Step ${step.step}: model call`),
    facts([
      ["started", `+${duration(step.startedAt - (run.startedAt ?? step.startedAt))}`],
      ["model time", duration(end - step.startedAt)],
      [
        "tokens",
        step.usage
          ? `${tokens(step.usage.input)} in · ${tokens(step.usage.output)} out${step.usage.cacheRead ? ` · ${tokens(step.usage.cacheRead)} cache read` : ""}`
          : "in flight",
      ],
      ["cost", step.usage ? cost(step.usage) : null],
      ["stop", step.stopReason ?? null],
      [
        "context",
        step.context
          ? `${tokens(step.context.estTokens)} of ${tokens(step.context.budgetTokens)} budget (${tokens(step.context.windowTokens)} window)`
          : null,
      ],
      ["goal", goal ? goalLink(goal) : null],
      [
        "called",
        step.tools.length > 0
          ? step.tools.map((t) => t.name).join(", ")
          : step.endedAt
            ? "no tool: the answer"
            : null,
      ],
    ]),
    ...step.notes.map((note) => h("p", { class: "note-line" }, note)),
    manifest
      ? h(
          "section",
          { class: "manifest" },
          h("h3", {}, "What the model saw"),
          h(
            "p",
            { class: "facts" },
            [
              `${manifest.messages} messages`,
              manifest.trimmedUpTo > 0 ? `outputs before entry ${manifest.trimmedUpTo} trimmed` : "",
              manifest.compactions > 0 ? `${manifest.compactions} compactions` : "",
            ]
              .filter(Boolean)
              .join(" · "),
          ),
          h(
            "table",
            { class: "sections" },
            h("thead", {}, h("tr", {}, h("th", {}, "section"), h("th", {}, "source"), h("th", {}, "chars"))),
            h(
              "tbody",
              {},
              ...manifest.sections.map((s) =>
                h(
                  "tr",
                  {},
                  h("td", {}, s.section),
                  h("td", {}, s.source ?? ""),
                  h("td", {}, `${s.injectedChars}${s.truncated ? " (cut)" : ""}`),
                ),
              ),
            ),
          ),
        )
      : h(
          "p",
          { class: "facts" },
          step.endedAt
            ? "The context manifest is read once the step is stored…"
            : "What the model saw is stored when the step ends.",
        ),
    step.text
      ? h(
          "section",
          {},
          h("h3", {}, "What the model said"),
          h("pre", { class: "said", id: "step-text", tabindex: "0" }, step.text),
        )
      : null,
    live
      ? h(
          "section",
          {},
          h("h3", {}, "Streaming"),
          h("pre", { class: "live-text" }, live.text || live.thinking || "…"),
        )
      : null,
    run.end
      ? h(
          "section",
          {},
          h("h3", {}, "Files"),
          stepDiff(run, step.step, actions),
          rewindButton(run, actions, step.step),
        )
      : null,
  ].filter((x): x is HTMLElement => x !== null);
}

/** The step's goal, a button that brings the goal (and the steps that served it) into view. */
function goalLink(goal: GoalView): HTMLElement {
  return h(
    "button",
    {
      type: "button",
      class: "link",
      id: "step-goal",
      click: () => {
        const item = document.querySelector<HTMLElement>(`[data-goal="${CSS.escape(goal.id)}"]`);
        item?.scrollIntoView({ block: "nearest" });
        item?.classList.add("flash");
        setTimeout(() => item?.classList.remove("flash"), 1500);
      },
    },
    goal.title,
  );
}

/** The second memory layer: the line later steps keep instead of the output. */
function memoryLayer(tool: ToolView): HTMLElement[] {
  if (tool.ok === undefined) return [];
  if (!tool.longTermMemory)
    return [
      h(
        "p",
        { class: "facts", id: "tool-memory-none" },
        "No long-term line: if the context is trimmed, later steps see only that this output was cut.",
      ),
    ];
  return [
    h("h3", {}, "Long-term memory: what later steps see"),
    h(
      "p",
      { class: "facts" },
      tool.outputOnce
        ? "Shown instead of the output from the next step on."
        : "Shown instead of the output once the context is trimmed.",
    ),
    h("pre", { class: "memory", id: "tool-memory", tabindex: "0" }, tool.longTermMemory),
  ];
}

function toolPanel(run: RunModel, step: StepView, tool: ToolView): HTMLElement[] {
  const state =
    tool.ok === undefined
      ? tool.prompt && !tool.prompt.outcome
        ? "waiting for you"
        : "running…"
      : tool.ok
        ? "ok"
        : `failed: ${tool.error?.code ?? ""}`;
  return [
    h(
      "h2",
      {},
      `${tool.name}`,
      h("span", { class: `pill ${tool.ok === false ? "bad" : tool.ok ? "ok" : "warn"}` }, state),
    ),
    facts([
      ["step", String(step.step)],
      ["started", `+${duration(tool.startedAt - (run.startedAt ?? tool.startedAt))}`],
      ["took", tool.durationMs !== undefined ? duration(tool.durationMs) : null],
      ["permission", permissionLine(tool)],
      ["approval", tool.prompt?.outcome ?? null],
      ["error", tool.error ? `${tool.error.code}: ${tool.error.message}` : null],
    ]),
    changedFilesLine(tool),
    h("h3", {}, "Arguments"),
    h("pre", { class: "args", tabindex: "0" }, JSON.stringify(tool.arguments, null, 2)),
    h("h3", {}, tool.outputOnce ? "Output: the model sees it in full once" : "Output: what the model sees"),
    h("pre", { class: "result", id: "tool-output", tabindex: "0" }, tool.content ?? "(not yet)"),
    ...memoryLayer(tool),
  ].filter((x): x is HTMLElement => x !== null);
}

export function stepPanel(
  run: RunModel,
  selected: Selection | undefined,
  actions: PanelActions,
): HTMLElement {
  const target =
    selected?.runId === run.runId ? run : selected ? run.childRuns.get(selected.runId) : undefined;
  const step = target?.steps.find((s) => s.step === selected?.step);
  const tool = selected?.toolCallId ? step?.tools.find((t) => t.id === selected.toolCallId) : undefined;
  const body =
    !target || !step
      ? [
          h(
            "p",
            { class: "muted" },
            "Select a bar of the timeline to see the call whole: what the model saw, what a tool returned.",
          ),
        ]
      : tool
        ? toolPanel(target, step, tool)
        : modelPanel(target, step, actions);
  return h(
    "aside",
    { class: "card panel", id: "panel", "aria-label": "the selected call" },
    target && target !== run
      ? h("p", { class: "facts" }, "in sub-agent ", h("a", { href: `#/runs/${target.runId}` }, target.runId))
      : null,
    ...body,
  );
}
