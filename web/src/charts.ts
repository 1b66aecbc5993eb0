// How a run used its context and budget, step by step, as charts with axes, units and a
// legend: context use against the window and the budget line (compactions and goal closes
// marked), cumulative cost, and tokens in and out. Hand-written SVG: no chart library.
import { cost, h, tokens, visible } from "./dom.js";
import type { RunModel, StepView } from "./run-state.js";

const SVG = "http://www.w3.org/2000/svg";
const W = 560;
const H = 200;
const PAD = { left: 52, right: 12, top: 12, bottom: 34 };
/** Per-step marks (dots, bars with tooltips) up to this many steps. */
const MARKED_STEPS_UP_TO = 100;

function el(tag: string, attributes: Record<string, string | number>, text?: string): SVGElement {
  const node = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, String(value));
  if (text !== undefined) node.textContent = visible(text);
  return node;
}

function niceMax(value: number): number {
  if (value <= 0) return 1;
  const power = 10 ** Math.floor(Math.log10(value));
  return ([1, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10].find((m) => m * power >= value) ?? 10) * power;
}

interface Frame {
  svg: SVGSVGElement;
  x(step: number): number;
  y(value: number): number;
  band: number;
}

/** An SVG with its axes: steps along x, `yMax` in `unit` up y, four grid lines. */
function frame(
  label: string,
  steps: number,
  yMax: number,
  format: (v: number) => string,
  unit: string,
): Frame {
  const svg = document.createElementNS(SVG, "svg");
  svg.setAttribute("viewBox", `0 0 ${W} ${H}`);
  svg.setAttribute("role", "img");
  svg.setAttribute("aria-label", label);
  const plotW = W - PAD.left - PAD.right;
  const plotH = H - PAD.top - PAD.bottom;
  const band = plotW / Math.max(steps, 1);
  const x = (step: number) => PAD.left + (step - 0.5) * band;
  const y = (value: number) => PAD.top + plotH - (value / yMax) * plotH;
  for (let i = 0; i <= 4; i++) {
    const value = (yMax * i) / 4;
    svg.append(el("line", { class: "grid", x1: PAD.left, x2: W - PAD.right, y1: y(value), y2: y(value) }));
    svg.append(
      el(
        "text",
        { class: "tick-label", x: PAD.left - 6, y: y(value) + 4, "text-anchor": "end" },
        format(value),
      ),
    );
  }
  const every = Math.max(1, Math.ceil(steps / 10));
  for (let step = 1; step <= steps; step += every)
    svg.append(
      el(
        "text",
        { class: "tick-label", x: x(step), y: H - PAD.bottom + 14, "text-anchor": "middle" },
        String(step),
      ),
    );
  svg.append(el("line", { class: "axis-line", x1: PAD.left, x2: W - PAD.right, y1: y(0), y2: y(0) }));
  svg.append(
    el("text", { class: "axis-title", x: PAD.left + plotW / 2, y: H - 4, "text-anchor": "middle" }, "step"),
  );
  svg.append(
    el(
      "text",
      {
        class: "axis-title",
        x: 12,
        y: PAD.top + plotH / 2,
        transform: `rotate(-90 12 ${PAD.top + plotH / 2})`,
        "text-anchor": "middle",
      },
      unit,
    ),
  );
  return { svg, x, y, band };
}

function legend(items: Array<[string, string]>): HTMLElement {
  return h(
    "ul",
    { class: "legend" },
    ...items.map(([cls, text]) =>
      h("li", {}, h("span", { class: `swatch ${cls}`, "aria-hidden": "true" }), text),
    ),
  );
}

function figure(title: string, svg: SVGSVGElement, items: Array<[string, string]>, id: string): HTMLElement {
  const box = h("figure", { class: "chart", id }, h("figcaption", {}, title));
  box.append(svg, legend(items));
  return box;
}

function path(points: Array<[number, number]>): string {
  return points.map(([px, py], i) => `${i === 0 ? "M" : "L"}${px.toFixed(1)},${py.toFixed(1)}`).join(" ");
}

function marks(frame: Frame, run: RunModel, steps: StepView[], top: number, bottom: number): void {
  const closes = new Set<number>();
  for (const goal of run.goalList.values()) if (goal.status !== "open") closes.add(goal.steps.at(-1) ?? 0);
  for (const step of steps) {
    const xPos = frame.x(step.step);
    for (const [cls, on, text] of [
      ["compaction", step.compacted, "context compacted or trimmed"],
      ["goal-fold", closes.has(step.step), "a goal closed: its steps fold"],
    ] as const) {
      if (!on) continue;
      const line = el("line", { class: `mark ${cls}`, x1: xPos, x2: xPos, y1: top, y2: bottom });
      line.append(el("title", {}, `step ${step.step}: ${text}`));
      frame.svg.append(line);
    }
  }
}

export function contextChart(run: RunModel): HTMLElement {
  const steps = run.steps.filter((s) => s.context);
  const n = run.steps.length;
  const windowTokens = Math.max(0, ...steps.map((s) => s.context!.windowTokens));
  const budget = Math.max(0, ...steps.map((s) => s.context!.budgetTokens));
  const used = Math.max(0, ...steps.map((s) => s.context!.estTokens));
  // The window dwarfs a short run's use: scale to the budget unless use passes it.
  const yMax = niceMax(Math.max(used, budget) * 1.1);
  const f = frame(
    `context use per step: at most ${tokens(used)} tokens of a ${tokens(budget)} budget`,
    n,
    yMax,
    tokens,
    "tokens",
  );
  const top = f.y(yMax);
  const bottom = f.y(0);
  if (budget > 0)
    f.svg.append(
      el("line", { class: "budget-line", x1: PAD.left, x2: W - PAD.right, y1: f.y(budget), y2: f.y(budget) }),
    );
  if (windowTokens > 0 && windowTokens <= yMax)
    f.svg.append(
      el("line", {
        class: "window-line",
        x1: PAD.left,
        x2: W - PAD.right,
        y1: f.y(windowTokens),
        y2: f.y(windowTokens),
      }),
    );
  marks(f, run, run.steps, top, bottom);
  const points = steps.map((s) => [f.x(s.step), f.y(s.context!.estTokens)] as [number, number]);
  if (points.length > 0) f.svg.append(el("path", { class: "line context", d: path(points) }));
  // A dot (with its tooltip) a step while they can be told apart; the line alone past that.
  for (const s of steps.length <= MARKED_STEPS_UP_TO ? steps : []) {
    const dot = el("circle", { class: "dot context", cx: f.x(s.step), cy: f.y(s.context!.estTokens), r: 3 });
    dot.append(
      el(
        "title",
        {},
        `step ${s.step}: ${tokens(s.context!.estTokens)} of ${tokens(s.context!.budgetTokens)} budget, ${tokens(s.context!.windowTokens)} window`,
      ),
    );
    f.svg.append(dot);
  }
  return figure(
    `Context use (window ${tokens(windowTokens)}${windowTokens > yMax ? ", above the chart" : ""})`,
    f.svg,
    [
      ["context", "estimated tokens sent"],
      ["budget", `budget ${tokens(budget)}`],
      ...(windowTokens <= yMax ? ([["window", "model window"]] as Array<[string, string]>) : []),
      ["compaction", "compaction or trim"],
      ["goal-fold", "goal closed (folded)"],
    ],
    "chart-context",
  );
}

export function costChart(run: RunModel): HTMLElement {
  const ended = run.steps.filter((s) => s.usage);
  const priced = ended.some((s) => s.usage!.costUsd > 0);
  let sum = 0;
  const series = ended.map((s) => {
    sum += priced ? s.usage!.costUsd : s.usage!.totalTokens;
    return [s.step, sum] as [number, number];
  });
  const format = priced
    ? (v: number) =>
        v === 0 ? "$0" : v < 0.01 ? `$${v.toFixed(4)}` : v < 1 ? `$${v.toFixed(3)}` : `$${v.toFixed(2)}`
    : tokens;
  const yMax = niceMax(sum * 1.05);
  const f = frame(
    priced ? `cumulative cost: ${format(sum)}` : `cumulative tokens: ${tokens(sum)} (cost unknown)`,
    run.steps.length,
    yMax,
    format,
    priced ? "US dollars" : "tokens",
  );
  if (series.length > 0) {
    const pts = series.map(([step, v]) => [f.x(step), f.y(v)] as [number, number]);
    f.svg.append(
      el("path", {
        class: "area cost",
        d: `${path(pts)} L${pts.at(-1)![0]},${f.y(0)} L${pts[0]![0]},${f.y(0)} Z`,
      }),
    );
    f.svg.append(el("path", { class: "line cost", d: path(pts) }));
  }
  return figure(
    priced
      ? `Cumulative cost (${cost({ costUsd: sum, totalTokens: sum })})`
      : "Cumulative tokens (no price known for this model)",
    f.svg,
    [["cost", priced ? "cost so far, this run's own calls" : "tokens so far"]],
    "chart-cost",
  );
}

export function tokensChart(run: RunModel): HTMLElement {
  const ended = run.steps.filter((s) => s.usage);
  const yMax = niceMax(Math.max(1, ...ended.map((s) => s.usage!.input + s.usage!.output)) * 1.05);
  const f = frame("tokens in and out per step", run.steps.length, yMax, tokens, "tokens");
  const width = Math.max(Math.min(f.band * 0.7, 28), 1.5);
  if (ended.length > MARKED_STEPS_UP_TO) {
    // Hundreds of bars: one path per series, no tooltips (the waterfall has each step's).
    for (const [cls, from, to] of [
      ["input", (_: StepView["usage"]) => 0, (u: StepView["usage"]) => u!.input],
      ["output", (u: StepView["usage"]) => u!.input, (u: StepView["usage"]) => u!.input + u!.output],
    ] as const) {
      const d = ended
        .map((step) => {
          const x = f.x(step.step) - width / 2;
          const top = f.y(to(step.usage));
          return `M${x.toFixed(1)},${f.y(from(step.usage)).toFixed(1)}V${top.toFixed(1)}h${width.toFixed(2)}V${f.y(from(step.usage)).toFixed(1)}Z`;
        })
        .join("");
      f.svg.append(el("path", { class: `bars ${cls}`, d }));
    }
    return figure(
      "Tokens per step",
      f.svg,
      [
        ["input", "input (sent)"],
        ["output", "output (generated)"],
      ],
      "chart-tokens",
    );
  }
  for (const step of ended) {
    const usage = step.usage!;
    const xPos = f.x(step.step) - width / 2;
    for (const [cls, from, value] of [
      ["input", 0, usage.input],
      ["output", usage.input, usage.output],
    ] as const) {
      const rect = el("rect", {
        class: cls,
        x: xPos,
        y: f.y(from + value),
        width,
        height: Math.max(f.y(from) - f.y(from + value), 0),
      });
      rect.append(
        el("title", {}, `step ${step.step}: ${usage.input} in, ${usage.output} out, ${cost(usage)}`),
      );
      f.svg.append(rect);
    }
  }
  return figure(
    "Tokens per step",
    f.svg,
    [
      ["input", "input (sent)"],
      ["output", "output (generated)"],
    ],
    "chart-tokens",
  );
}
