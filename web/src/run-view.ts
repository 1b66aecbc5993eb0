// A run on the page: what waits for you at the top; the header (status, task, model, what it
// spent, its session and parent run, cancel and revert); the text of the step in flight; the
// goal tree beside the waterfall of model and tool calls and the panel of the selected call;
// charts of context, cost and tokens; then every step in detail.
import { api } from "./api.js";
import { pendingPrompts, waitingBanner } from "./approval-banner.js";
import { contextChart, costChart, tokensChart } from "./charts.js";
import { cost, duration, h, tokens } from "./dom.js";
import { permissionLine } from "./permission-line.js";
import { changedFilesLine, rewindBox, rewindButton } from "./rewind-box.js";
import {
  type ContextManifest,
  type PromptView,
  type RunModel,
  runSpending,
  type Spent,
  type StepView,
  type ToolView,
} from "./run-state.js";
import { stepPanel } from "./step-panel.js";
import { type Selection, timeline } from "./timeline.js";

export interface RunActions {
  answered(): void;
  select(selection: Selection): void;
  selected: Selection | undefined;
  /** Where the waterfall was scrolled to before this draw. */
  waterfallScroll?: number;
}

/** Past this many steps the detail list is closed until asked for (the page paints at once). */
const DETAIL_OPEN_UP_TO = 50;
/** Runs whose long detail list the user opened. */
const detailsOpened = new Set<string>();

function stepsDetail(run: RunModel): HTMLElement {
  const long = run.steps.length > DETAIL_OPEN_UP_TO;
  const open = !long || detailsOpened.has(run.runId);
  const list = h(
    "ol",
    { class: "timeline", id: "timeline" },
    ...(open ? run.steps.map((step) => stepItem(step, long, run.runId)) : []),
  );
  const details = h(
    "details",
    { class: "card steps-detail", ...(open ? { open: "" } : {}) },
    h("summary", {}, h("h2", {}, `Steps in detail (${run.steps.length})`)),
    list,
  );
  details.addEventListener("toggle", () => {
    if (!(details as HTMLDetailsElement).open || list.childElementCount > 0) return;
    detailsOpened.add(run.runId);
    list.append(...run.steps.map((step) => stepItem(step, long, run.runId)));
  });
  return details;
}

function json(value: unknown): string {
  return JSON.stringify(value, null, 2);
}

/** A prompt already settled (or waiting: the banner above holds its answers). */
function promptLine(prompt: PromptView): HTMLElement {
  if (prompt.outcome)
    return h("div", { class: "event" }, `${prompt.kind}: ${prompt.text} — ${prompt.outcome}`);
  return h(
    "div",
    { class: "event waiting-line" },
    h("a", { href: "#waiting" }, `waiting for you: ${prompt.text}`),
  );
}

function toolItem(tool: ToolView): HTMLElement {
  const state =
    tool.ok === undefined
      ? "running…"
      : tool.ok
        ? `ok · ${duration(tool.durationMs ?? 0)}`
        : `failed: ${tool.error?.code ?? ""}`;
  return h(
    "div",
    { class: `tool${tool.ok === false ? " failed" : ""}`, "data-tool-call": tool.id },
    h("div", {}, h("strong", {}, tool.name), " ", h("span", { class: "facts" }, state)),
    h("pre", { class: "args" }, json(tool.arguments)),
    permissionLine(tool) ? h("div", { class: "facts" }, permissionLine(tool)) : null,
    changedFilesLine(tool),
    tool.prompt ? promptLine(tool.prompt) : null,
    tool.content !== undefined ? h("pre", { class: "result" }, tool.content) : null,
  );
}

function manifestBox(manifest: ContextManifest): HTMLElement {
  const facts = [
    `${manifest.messages} messages`,
    manifest.trimmedUpTo > 0 ? `outputs before entry ${manifest.trimmedUpTo} trimmed` : "",
    manifest.compactions > 0 ? `${manifest.compactions} compactions` : "",
    manifest.goal ? `goal ${manifest.goal}` : "",
  ].filter(Boolean);
  return h(
    "details",
    { class: "manifest" },
    h(
      "summary",
      { class: "facts" },
      `what the model saw: ${manifest.sections.length} sections · ${facts.join(" · ")}`,
    ),
    h(
      "ul",
      { class: "facts" },
      ...manifest.sections.map((section) =>
        h(
          "li",
          {},
          `${section.section}${section.source ? ` (${section.source})` : ""}: ${section.injectedChars} chars${section.truncated ? ", cut" : ""}`,
        ),
      ),
    ),
  );
}

/** Steps opened in a long run's detail list, by "run:step": drawn open again on a redraw. */
const stepsOpened = new Set<string>();

/**
 * A step in the detail list. In a long run only its head is drawn: its body (what the model
 * saw, its notes and tool calls) is drawn when the step is opened.
 */
function stepItem(step: StepView, long: boolean, runId: string): HTMLElement {
  const facts: string[] = [];
  if (step.usage)
    facts.push(
      `${tokens(step.usage.input)} in · ${tokens(step.usage.output)} out` +
        (step.usage.cacheRead ? ` · ${tokens(step.usage.cacheRead)} cache read` : "") +
        ` · ${cost(step.usage)}`,
    );
  if (step.endedAt) facts.push(duration(step.endedAt - step.startedAt));
  if (step.stopReason) facts.push(`stop: ${step.stopReason}`);
  if (step.context)
    facts.push(
      `context ${tokens(step.context.estTokens)} / ${tokens(step.context.budgetTokens)} budget (${tokens(step.context.windowTokens)} window)`,
    );
  const body = (): Array<HTMLElement | null> => [
    step.manifest ? manifestBox(step.manifest) : null,
    ...step.notes.map((note) => h("div", { class: "event" }, note)),
    ...step.tools.map((tool) => toolItem(tool)),
  ];
  const attrs = { class: "step", "data-step": String(step.step), id: `step-${step.step}` };
  if (!long)
    return h(
      "li",
      attrs,
      h("div", { class: "step-head" }, `Step ${step.step}`),
      h("div", { class: "facts" }, facts.join(" · ")),
      ...body(),
    );
  const key = `${runId}:${step.step}`;
  const opened = stepsOpened.has(key);
  const details = h(
    "details",
    { class: "step-body", ...(opened ? { open: "" } : {}) },
    h(
      "summary",
      {},
      h("span", { class: "step-head" }, `Step ${step.step}`),
      " ",
      h("span", { class: "facts" }, facts.join(" · ")),
    ),
    ...(opened ? body() : []),
  );
  let drawn = opened;
  details.addEventListener("toggle", () => {
    if (!(details as HTMLDetailsElement).open) {
      stepsOpened.delete(key);
      return;
    }
    stepsOpened.add(key);
    if (drawn) return;
    drawn = true;
    details.append(...body().filter((node): node is HTMLElement => node !== null));
  });
  return h("li", attrs, details);
}

function spentLine(spent: Spent): string {
  return `${tokens(spent.input)} in · ${tokens(spent.output)} out · ${cost(spent)}`;
}

function goalsCard(run: RunModel, actions: RunActions): HTMLElement {
  const goals = [...run.goalList.values()];
  const depth = (id: string | null): number => {
    let d = 0;
    for (let p = id; p && d < 16; p = run.goalList.get(p)?.parentId ?? null) d++;
    return d;
  };
  return h(
    "section",
    { class: "card goals", "aria-label": "goals and sub-agents" },
    h("h2", {}, "Goals"),
    goals.length > 0
      ? h(
          "ul",
          { class: "goal-list", id: "goal-list" },
          ...goals.map((goal) => {
            const item = h(
              "li",
              {
                class: `goal goal-${goal.status}${goal.id === run.focusedGoal ? " focused" : ""}`,
                "data-goal": goal.id,
              },
              h(
                "span",
                { class: "goal-title" },
                `${goal.status === "open" ? (goal.id === run.focusedGoal ? "→" : "○") : "✓"} ${goal.title}`,
              ),
              h(
                "span",
                { class: "goal-steps" },
                ...goal.steps.map((step) =>
                  h(
                    "button",
                    {
                      type: "button",
                      class: "chip",
                      "aria-label": `step ${step}, which served the goal ${goal.title}`,
                      click: () => actions.select({ runId: run.runId, step }),
                    },
                    `step ${step}`,
                  ),
                ),
              ),
            );
            Object.assign(item.style, { paddingLeft: `${(depth(goal.parentId) * 0.9).toFixed(1)}rem` });
            return item;
          }),
        )
      : null,
    h(
      "details",
      { class: "tree-text", ...(goals.length === 0 ? { open: "" } : {}) },
      h("summary", {}, "as the model sees it"),
      h("pre", { id: "goal-tree" }, run.goals || "(no goals yet)"),
    ),
    run.children.length > 0 ? h("h2", {}, "Sub-agents") : null,
    ...run.children.map((child) =>
      h(
        "div",
        { class: "child", "data-child": child.runId },
        h("a", { href: `#/runs/${child.runId}` }, `${child.mode} · ${child.preset}`),
        " ",
        h("span", { class: `status status-${child.status ?? "running"}` }, child.status ?? "running"),
        child.usage
          ? h(
              "div",
              { class: "facts" },
              `${child.steps} step${child.steps === 1 ? "" : "s"} · ${tokens(child.usage.totalTokens)} tokens · ${cost(child.usage)}`,
            )
          : null,
        h("div", { class: "facts" }, child.task),
      ),
    ),
  );
}

export function renderRun(run: RunModel, actions: RunActions): HTMLElement {
  const end = run.end;
  const early = !end && run.steps.length === 0 ? run.state : undefined;
  const status = end ? end.status : early && early.status !== "running" ? early.status : "running";
  const waiting = pendingPrompts(run).length > 0;
  const error = end?.error ?? early?.error ?? undefined;
  const cancel =
    end || status !== "running"
      ? null
      : h(
          "button",
          {
            class: "danger",
            type: "button",
            click: () =>
              void api("POST", `/runs/${run.runId}/cancel`).then(actions.answered, (e: unknown) =>
                alert(String(e)),
              ),
          },
          "Cancel run",
        );
  const { total, subagents } = runSpending(run);
  const elapsed = end ? end.durationMs : run.startedAt ? Date.now() - run.startedAt : 0;
  return h(
    "div",
    { class: "run", "data-run": run.runId },
    waitingBanner(run, actions),
    h(
      "section",
      { class: "card run-head", "aria-label": "the run" },
      h(
        "nav",
        { class: "crumbs", "aria-label": "where this run belongs" },
        h("a", { href: "#/" }, "Sessions"),
        run.sessionId ? h("a", { href: `#/sessions/${run.sessionId}`, id: "session-link" }, "session") : null,
        run.parentRunId
          ? h("a", { href: `#/runs/${run.parentRunId}`, id: "parent-link" }, "↑ parent run")
          : null,
        h("span", { "aria-current": "page" }, run.parentRunId ? "sub-agent run" : "run"),
      ),
      h(
        "div",
        { class: "title-row" },
        h("span", { class: `pill status status-${waiting ? "waiting" : status}`, id: "run-status" }, status),
        h("h1", { class: "task" }, run.task ?? run.runId),
      ),
      h(
        "div",
        { class: "summary" },
        h("span", {}, `${run.provider ?? ""}/${run.model ?? ""}`),
        h("span", {}, `${run.steps.length} step${run.steps.length === 1 ? "" : "s"}`),
        h("span", { id: "run-usage" }, spentLine(total)),
        subagents
          ? h(
              "span",
              { class: "facts", id: "run-subagent-usage" },
              `incl. sub-agents ${spentLine(subagents)}`,
            )
          : null,
        elapsed ? h("span", {}, duration(elapsed)) : null,
        h("span", { class: "actions" }, cancel, rewindButton(run, actions)),
      ),
      h("div", { class: "facts" }, `run ${run.runId}`),
      run.notices.length > 0
        ? h(
            "ul",
            { class: "notices", id: "run-notices" },
            ...run.notices.map((notice) => h("li", {}, notice)),
          )
        : null,
      error ? h("div", { class: "error" }, `${error.code}: ${error.message}`) : null,
      end?.finalText
        ? h("div", { class: "answer" }, h("strong", {}, "Answer"), h("pre", {}, end.finalText))
        : null,
      ...run.questions.filter((q) => q.outcome).map((q) => promptLine(q)),
    ),
    rewindBox(run, actions),
    run.live && (run.live.text || run.live.thinking)
      ? h(
          "section",
          { class: "card live", "aria-label": "the step in flight", "aria-live": "polite" },
          h(
            "h2",
            {},
            h("span", { class: "dot", "aria-hidden": "true" }),
            `Step ${run.live.step} is streaming`,
          ),
          run.live.thinking ? h("pre", { class: "thinking" }, run.live.thinking) : null,
          h("pre", { id: "live-text", class: "live-text" }, run.live.text || "…"),
        )
      : null,
    h(
      "div",
      { class: "trace" },
      goalsCard(run, actions),
      h(
        "section",
        { class: "card timeline-card", "aria-label": "timeline" },
        h(
          "div",
          { class: "card-head" },
          h("h2", {}, "Timeline"),
          h(
            "ul",
            { class: "legend" },
            ...[
              ["model", "model call"],
              ["tool", "tool call"],
              ["failed", "failed"],
              ["waiting", "waiting for you"],
            ].map(([cls, text]) =>
              h("li", {}, h("span", { class: `swatch bar-${cls}`, "aria-hidden": "true" }), text),
            ),
          ),
        ),
        timeline(run, actions.selected, actions.select, actions.waterfallScroll),
      ),
      stepPanel(run, actions.selected, actions),
    ),
    h(
      "section",
      { class: "charts", "aria-label": "charts" },
      contextChart(run),
      costChart(run),
      tokensChart(run),
    ),
    stepsDetail(run),
  );
}
