// A run on the page: the goal tree beside the timeline of steps (model calls with tokens,
// latency, cost, stop reason and context use; tool calls with arguments, result, duration and
// the permission decision; sub-agents), approvals and questions answered in place, cancel.
import { api } from "./api.js";
import { stepChart } from "./chart.js";
import { cost, duration, h, tokens } from "./dom.js";
import {
  type ContextManifest,
  type PromptView,
  type RunModel,
  runSpending,
  type Spent,
  type StepView,
  type ToolView,
} from "./run-state.js";

export interface RunActions {
  answered(): void;
}

function json(value: unknown): string {
  return JSON.stringify(value, null, 2);
}

function promptBox(run: RunModel, prompt: PromptView, actions: RunActions): HTMLElement {
  if (prompt.outcome)
    return h("div", { class: "event" }, `${prompt.kind}: ${prompt.text} — ${prompt.outcome}`);
  const path = `/runs/${run.runId}/${prompt.kind === "permission" ? "approvals" : "questions"}/${encodeURIComponent(prompt.toolCallId)}`;
  const send = (body: unknown) => () => {
    void api("POST", path, body).then(actions.answered, (error: unknown) => alert(String(error)));
  };
  if (prompt.kind === "permission") {
    return h(
      "div",
      { class: "prompt", "data-prompt": prompt.promptId },
      h("div", {}, prompt.text),
      h(
        "div",
        { class: "actions" },
        h("button", { class: "primary", click: send({ decision: "allow_once" }) }, "Allow once"),
        prompt.canAllowForSession
          ? h("button", { click: send({ decision: "allow_session" }) }, "Allow for the session")
          : null,
        h("button", { class: "danger", click: send({ decision: "deny" }) }, "Deny"),
      ),
    );
  }
  const input = h("input", {
    type: "text",
    placeholder: "your answer",
    "aria-label": "answer",
  }) as HTMLInputElement;
  return h(
    "div",
    { class: "prompt", "data-prompt": prompt.promptId },
    h("div", {}, `Question: ${prompt.text}`),
    prompt.choices ? h("div", { class: "facts" }, `choices: ${prompt.choices.join(", ")}`) : null,
    h(
      "div",
      { class: "actions" },
      input,
      h("button", { class: "primary", click: () => send({ answer: input.value })() }, "Answer"),
    ),
  );
}

function permissionLine(tool: ToolView): string | null {
  const p = tool.permission as
    | { behavior?: string; rule?: string; source?: string; mode?: string; by?: string; asked?: string }
    | undefined;
  if (!p) return null;
  const by = p.rule
    ? `rule ${p.rule}${p.source ? ` (${p.source})` : ""}`
    : `${p.by ?? "mode"} ${p.mode ?? ""}`.trim();
  return `${p.behavior === "deny" ? "denied" : "allowed"} by ${by}${p.asked ? `, user: ${p.asked}` : ""}`;
}

function toolItem(run: RunModel, tool: ToolView, actions: RunActions): HTMLElement {
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
    tool.prompt ? promptBox(run, tool.prompt, actions) : null,
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

function stepItem(run: RunModel, step: StepView, actions: RunActions): HTMLElement {
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
  return h(
    "li",
    { class: "step", "data-step": String(step.step) },
    h("div", { class: "step-head" }, `Step ${step.step}`),
    h("div", { class: "facts" }, facts.join(" · ")),
    step.manifest ? manifestBox(step.manifest) : null,
    ...step.notes.map((note) => h("div", { class: "event" }, note)),
    ...step.tools.map((tool) => toolItem(run, tool, actions)),
  );
}

function spentLine(spent: Spent): string {
  return `${tokens(spent.input)} in · ${tokens(spent.output)} out · ${cost(spent)}`;
}

export function renderRun(run: RunModel, actions: RunActions): HTMLElement {
  const end = run.end;
  const early = !end && run.steps.length === 0 ? run.state : undefined;
  const status = end ? end.status : early && early.status !== "running" ? early.status : "running";
  const error = end?.error ?? early?.error ?? undefined;
  const cancel =
    end || status !== "running"
      ? null
      : h(
          "button",
          {
            class: "danger",
            click: () =>
              void api("POST", `/runs/${run.runId}/cancel`).then(actions.answered, (e: unknown) =>
                alert(String(e)),
              ),
          },
          "Cancel run",
        );
  const { total, subagents } = runSpending(run);
  return h(
    "div",
    { class: "run", "data-run": run.runId },
    h(
      "div",
      { class: "card" },
      h(
        "div",
        { class: "summary" },
        h("span", { class: `status status-${status}`, id: "run-status" }, status),
        h("span", {}, `${run.provider ?? ""}/${run.model ?? ""}`),
        h("span", {}, `${run.steps.length} steps`),
        h("span", { id: "run-usage" }, spentLine(total)),
        subagents
          ? h(
              "span",
              { class: "facts", id: "run-subagent-usage" },
              `incl. sub-agents ${spentLine(subagents)}`,
            )
          : null,
        end ? h("span", {}, duration(end.durationMs)) : null,
        cancel,
      ),
      h(
        "div",
        { class: "facts" },
        `run ${run.runId}`,
        run.sessionId ? ` · session ` : "",
        run.sessionId ? h("a", { href: `#/sessions/${run.sessionId}` }, run.sessionId) : null,
      ),
      h("div", {}, h("strong", {}, "Task: "), run.task ?? ""),
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
    ),
    ...run.questions.map((q) => promptBox(run, q, actions)),
    h(
      "div",
      { class: "run-layout" },
      h(
        "section",
        { class: "card goals" },
        h("h3", {}, "Goals"),
        h("pre", { id: "goal-tree" }, run.goals || "(no goals yet)"),
        run.children.length > 0 ? h("h3", {}, "Sub-agents") : null,
        ...run.children.map((child) =>
          h(
            "div",
            { class: "tool" },
            h("a", { href: `#/runs/${child.runId}` }, `${child.mode} · ${child.preset}`),
            ` ${child.status ?? "running"}`,
            child.usage
              ? h(
                  "div",
                  { class: "facts" },
                  `${child.steps} steps · ${tokens(child.usage.totalTokens)} tokens · ${cost(child.usage)}`,
                )
              : null,
            h("div", { class: "facts" }, child.task),
          ),
        ),
      ),
      h(
        "section",
        { class: "card" },
        h("h3", {}, "Steps"),
        h("div", { class: "chart" }, stepChart(run.steps)),
        h(
          "ol",
          { class: "timeline", id: "timeline" },
          ...run.steps.map((step) => stepItem(run, step, actions)),
        ),
      ),
    ),
  );
}
