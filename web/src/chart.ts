// Tokens per step as a small bar chart (input light, output dark), with each step's cost in
// its tooltip: how a run spent its budget, at a glance. Plain SVG, no library.
import { cost } from "./dom.js";
import type { StepView } from "./run-state.js";

const SVG = "http://www.w3.org/2000/svg";

export function stepChart(steps: StepView[]): SVGSVGElement {
  const svg = document.createElementNS(SVG, "svg");
  svg.setAttribute("role", "img");
  svg.setAttribute("aria-label", "tokens per step");
  const ended = steps.filter((s) => s.usage);
  const width = Math.max(ended.length, 1) * 24;
  const height = 90;
  svg.setAttribute("viewBox", `0 0 ${width} ${height}`);
  svg.setAttribute("preserveAspectRatio", "none");
  const max = Math.max(1, ...ended.map((s) => (s.usage?.input ?? 0) + (s.usage?.output ?? 0)));
  ended.forEach((step, i) => {
    const usage = step.usage!;
    const inputH = (usage.input / max) * (height - 4);
    const outputH = (usage.output / max) * (height - 4);
    for (const [cls, y, h] of [
      ["input", height - inputH - outputH, inputH],
      ["output", height - outputH, outputH],
    ] as const) {
      const rect = document.createElementNS(SVG, "rect");
      rect.setAttribute("class", cls);
      rect.setAttribute("x", String(i * 24 + 3));
      rect.setAttribute("y", String(y));
      rect.setAttribute("width", "18");
      rect.setAttribute("height", String(Math.max(h, 0)));
      const title = document.createElementNS(SVG, "title");
      title.textContent = `step ${step.step}: ${usage.input} in, ${usage.output} out, ${cost(usage)}`;
      rect.append(title);
      svg.append(rect);
    }
  });
  return svg;
}
