// A run as a waterfall: each model call and tool call a bar on the run's time axis, a
// sub-agent's calls nested under the call that started it, coloured by kind and outcome, its
// duration, tokens and cost in its tooltip; a bar is a button that selects the call (the side
// panel shows it whole). Positions are percentages: the bars reflow at any width.
import { cost, duration, h, tokens } from "./dom.js";
import type { RunModel, StepView, ToolView } from "./run-state.js";

export interface Selection {
  runId: string;
  step: number;
  toolCallId?: string;
}

export interface Bar {
  kind: "model" | "tool";
  runId: string;
  step: number;
  toolCallId?: string;
  label: string;
  depth: number;
  start: number;
  end: number;
  outcome: "ok" | "failed" | "running" | "waiting";
  facts: string;
}

function modelEnd(step: StepView, now: number): number {
  const firstTool = Math.min(...step.tools.map((t) => t.startedAt));
  if (Number.isFinite(firstTool)) return firstTool;
  return step.endedAt ?? now;
}

function modelFacts(step: StepView, now: number): string {
  const parts = [`${duration(modelEnd(step, now) - step.startedAt)}`];
  if (step.usage)
    parts.push(`${tokens(step.usage.input)} in · ${tokens(step.usage.output)} out`, cost(step.usage));
  if (step.stopReason) parts.push(`stop: ${step.stopReason}`);
  return parts.join(" · ");
}

function toolOutcome(tool: ToolView): Bar["outcome"] {
  if (tool.ok === true) return "ok";
  if (tool.ok === false) return "failed";
  return tool.prompt && !tool.prompt.outcome ? "waiting" : "running";
}

/** The bars of a run, its sub-agents' under the call that started each, in time order. */
export function runBars(run: RunModel, now: number, depth = 0): Bar[] {
  const bars: Bar[] = [];
  for (const step of run.steps) {
    bars.push({
      kind: "model",
      runId: run.runId,
      step: step.step,
      label: depth === 0 ? `step ${step.step} · model` : `sub-agent step ${step.step}`,
      depth,
      start: step.startedAt,
      end: modelEnd(step, now),
      outcome: step.endedAt || step.tools.length > 0 ? "ok" : run.end ? "failed" : "running",
      facts: modelFacts(step, now),
    });
    for (const tool of step.tools) {
      const end = tool.durationMs !== undefined ? tool.startedAt + tool.durationMs : now;
      const outcome = toolOutcome(tool);
      bars.push({
        kind: "tool",
        runId: run.runId,
        step: step.step,
        toolCallId: tool.id,
        label: tool.name,
        depth: depth + 1,
        start: tool.startedAt,
        end: Math.max(end, tool.startedAt),
        outcome: run.end && outcome === "running" ? "failed" : outcome,
        facts: `${duration(Math.max(end - tool.startedAt, 0))} · ${outcome === "waiting" ? "waiting for you" : outcome}`,
      });
      if (tool.name !== "subagent") continue;
      for (const child of run.children.filter((c) => c.step === step.step)) {
        const childRun = run.childRuns.get(child.runId);
        if (childRun) bars.push(...runBars(childRun, now, depth + 2));
      }
    }
  }
  return bars;
}

/** Round steps for the axis: 1, 2, 5 × a power of ten, about six ticks. */
function tickStep(spanMs: number): number {
  const rough = spanMs / 6;
  const power = 10 ** Math.floor(Math.log10(Math.max(rough, 1)));
  return [1, 2, 5, 10].map((m) => m * power).find((s) => s >= rough) ?? power * 10;
}

/** Positions through the style object: the page's policy refuses style attributes. */
function placed(
  element: HTMLElement,
  style: Partial<Record<"left" | "width" | "paddingLeft", string>>,
): HTMLElement {
  Object.assign(element.style, style);
  return element;
}

function sameSelection(bar: Bar, selected: Selection | undefined): boolean {
  return (
    selected !== undefined &&
    bar.runId === selected.runId &&
    bar.step === selected.step &&
    bar.toolCallId === selected.toolCallId
  );
}

/** Rows drawn at once past this many: the rest are drawn as the waterfall scrolls to them. */
const ALL_ROWS_UP_TO = 150;
/** A row's height in px (style.css: .bars [role="listitem"]). */
const ROW_PX = 22;
const WINDOW_ROWS = 60;

export function timeline(
  run: RunModel,
  selected: Selection | undefined,
  select: (selection: Selection) => void,
  scrollTop = 0,
): HTMLElement {
  const now = Date.now();
  const bars = runBars(run, now);
  const t0 = run.startedAt ?? bars[0]?.start ?? now;
  const t1 = Math.max(run.end ? t0 + run.end.durationMs : now, ...bars.map((b) => b.end), t0 + 1);
  const span = t1 - t0;
  const at = (t: number) => `${(((t - t0) / span) * 100).toFixed(3)}%`;
  const step = tickStep(span);
  const ticks: HTMLElement[] = [];
  // No tick so near the right edge that its label would be cut.
  for (let t = 0; t <= span * 0.94; t += step)
    ticks.push(placed(h("span", { class: "tick" }, duration(t)), { left: at(t0 + t) }));
  // Rows are made once each and kept, so a row with the focus survives the window moving.
  const made = new Map<number, HTMLElement>();
  const row = (index: number): HTMLElement => {
    const known = made.get(index);
    if (known) return known;
    const bar = bars[index]!;
    const width = `${Math.max(((bar.end - bar.start) / span) * 100, 0.3).toFixed(3)}%`;
    const attrs: Record<string, string | ((event: Event) => void)> = {
      type: "button",
      "data-index": String(index),
      class: `bar-row${sameSelection(bar, selected) ? " selected" : ""}`,
      "data-bar": bar.kind,
      "data-run": bar.runId,
      "data-step": String(bar.step),
      "data-depth": String(bar.depth),
      title: `${bar.label}: ${bar.facts}`,
      "aria-label": `${bar.label}, ${bar.facts}`,
      click: () =>
        select({
          runId: bar.runId,
          step: bar.step,
          ...(bar.toolCallId ? { toolCallId: bar.toolCallId } : {}),
        }),
    };
    if (bar.toolCallId) attrs["data-call"] = bar.toolCallId;
    if (sameSelection(bar, selected)) attrs["aria-pressed"] = "true";
    const item = h(
      "div",
      { role: "listitem" },
      h(
        "button",
        attrs,
        placed(h("span", { class: "bar-label" }, bar.label), { paddingLeft: `${bar.depth * 0.9}rem` }),
        h(
          "span",
          { class: "bar-track" },
          placed(h("span", { class: `bar bar-${bar.kind} bar-${bar.outcome}` }), {
            left: at(bar.start),
            width,
          }),
        ),
      ),
    );
    made.set(index, item);
    return item;
  };
  const list = h("div", {
    class: "bars",
    role: "list",
    "aria-label": `model and tool calls over time: ${bars.length}`,
    "data-count": String(bars.length),
  });
  const box = h(
    "div",
    { class: "waterfall", id: "waterfall" },
    h(
      "div",
      { class: "axis", "aria-hidden": "true" },
      h("span", { class: "bar-label" }),
      h("span", { class: "bar-track" }, ...ticks),
    ),
    list,
  );
  // The arrow keys, Home and End move between the calls (drawing the rows they reach).
  let drawWindow = (_force?: boolean) => {};
  list.addEventListener("keydown", (event) => {
    const current = (event.target as HTMLElement).closest<HTMLElement>(".bar-row");
    if (!current) return;
    const index = Number(current.dataset.index);
    const moves: Record<string, number> = {
      ArrowDown: index + 1,
      ArrowUp: index - 1,
      Home: 0,
      End: bars.length - 1,
    };
    const next = moves[event.key];
    if (next === undefined || next < 0 || next >= bars.length) return;
    event.preventDefault();
    const target = row(next);
    if (!target.isConnected) {
      box.scrollTop = Math.max(next - 5, 0) * ROW_PX;
      drawWindow(true);
    }
    target.querySelector("button")?.focus({ preventScroll: true });
    target.scrollIntoView({ block: "nearest" });
  });
  if (bars.length <= ALL_ROWS_UP_TO) {
    list.append(...bars.map((_, i) => row(i)));
    return box;
  }
  // A long run: the rows in view and a screenful around them, between two spacers.
  const before = h("div", { "aria-hidden": "true" });
  const after = h("div", { "aria-hidden": "true" });
  let shownFrom = -1;
  const chosen = selected ? bars.findIndex((bar) => sameSelection(bar, selected)) : -1;
  const startTop = scrollTop || (chosen > 0 ? Math.max(chosen - 5, 0) * ROW_PX : 0);
  drawWindow = (force = false) => {
    // Before it is in the page the box cannot scroll: the window is where it will be.
    const top = box.isConnected ? box.scrollTop : startTop;
    const first = Math.max(0, Math.floor(top / ROW_PX) - WINDOW_ROWS / 3);
    if (first === shownFrom && !force) return;
    shownFrom = first;
    const last = Math.min(bars.length, first + WINDOW_ROWS);
    before.style.height = `${first * ROW_PX}px`;
    after.style.height = `${(bars.length - last) * ROW_PX}px`;
    const rows: HTMLElement[] = [];
    for (let i = first; i < last; i++) rows.push(row(i));
    // A row moved in the list loses the focus: the one that had it gets it back.
    const focused = document.activeElement;
    list.replaceChildren(before, ...rows, after);
    if (focused instanceof HTMLElement && list.contains(focused) && document.activeElement !== focused)
      focused.focus({ preventScroll: true });
  };
  drawWindow();
  box.addEventListener("scroll", () => drawWindow(), { passive: true });
  // Once in the page (scrollTop is kept only then): where it was, or at the selected call.
  // (Unless a key or the wheel moved it since: that wins.) At the top, the window drawn is right.
  if (startTop > 0)
    requestAnimationFrame(() => {
      if (box.scrollTop === 0) box.scrollTop = startTop;
      drawWindow();
    });
  return box;
}
