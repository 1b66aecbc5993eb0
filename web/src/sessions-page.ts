// The sessions, newest first, and their filters: status and workspace (asked of the server),
// words of the title, model, how recent and how costly (applied on the page). Every filter is
// in the URL, so a link or a reload shows the same list. A session whose run waits for you is
// marked.
import { api } from "./api.js";
import { cost, h, tokens } from "./dom.js";
import { onWaitingChange, waitingBySession } from "./waiting.js";

export interface Session {
  id: string;
  workspace: string;
  title: string;
  status: string;
  model: string;
  usage: { totalTokens: number; costUsd: number; unpricedTokens?: number };
  lastRunId: string | null;
  createdAt: number;
  updatedAt: number;
}

const SINCE: Array<[string, string, number]> = [
  ["", "any time", 0],
  ["1h", "last hour", 3_600_000],
  ["1d", "last day", 86_400_000],
  ["7d", "last 7 days", 7 * 86_400_000],
  ["30d", "last 30 days", 30 * 86_400_000],
];

export function ago(ms: number): string {
  const s = Math.round((Date.now() - ms) / 1000);
  if (s < 60) return `${s}s ago`;
  if (s < 3600) return `${Math.round(s / 60)}m ago`;
  if (s < 86_400) return `${Math.round(s / 3600)}h ago`;
  return `${Math.round(s / 86_400)}d ago`;
}

function select(
  label: string,
  name: string,
  value: string,
  options: Array<[string, string]>,
): HTMLSelectElement {
  const element = h("select", { "aria-label": label, name }) as HTMLSelectElement;
  for (const [v, text] of options) {
    const option = h("option", { value: v }, text) as HTMLOptionElement;
    option.selected = v === value;
    element.append(option);
  }
  return element;
}

/** The page's filters applied to what the server returned. */
export function filterSessions(sessions: Session[], params: URLSearchParams, now = Date.now()): Session[] {
  const words = (params.get("q") ?? "").toLowerCase().split(/\s+/).filter(Boolean);
  const model = params.get("model") ?? "";
  const since = SINCE.find(([key]) => key === params.get("since"))?.[2] ?? 0;
  const minCost = Number(params.get("minCost") ?? "") || 0;
  return sessions.filter(
    (s) =>
      words.every((w) => `${s.title} ${s.id}`.toLowerCase().includes(w)) &&
      (!model || s.model === model) &&
      (!since || now - s.updatedAt <= since) &&
      (!minCost || s.usage.costUsd >= minCost),
  );
}

function rows(sessions: Session[]): HTMLElement[] {
  const waiting = waitingBySession();
  return sessions.map((s) => {
    const count = waiting.get(s.id) ?? 0;
    return h(
      "tr",
      { "data-session": s.id, ...(count > 0 ? { class: "is-waiting" } : {}) },
      h(
        "td",
        {},
        h("a", { href: `#/sessions/${s.id}` }, s.title || s.id),
        count > 0
          ? h(
              "span",
              { class: "badge waiting-badge" },
              h("span", { class: "dot", "aria-hidden": "true" }),
              `${count} waiting for you`,
            )
          : null,
      ),
      h("td", {}, h("span", { class: `pill status status-${s.status}` }, s.status)),
      h("td", { class: "wide" }, s.workspace),
      h("td", { class: "wide" }, s.model),
      h("td", { class: "num" }, tokens(s.usage.totalTokens)),
      h("td", { class: "num" }, cost(s.usage)),
      h("td", {}, h("time", { datetime: new Date(s.updatedAt).toISOString() }, ago(s.updatedAt))),
    );
  });
}

/** Draws the page; returns what stops its updates. */
export async function sessionsPage(
  params: URLSearchParams,
  show: (...nodes: Node[]) => void,
  current: () => boolean,
): Promise<() => void> {
  const query = new URLSearchParams();
  for (const key of ["status", "workspace"]) if (params.get(key)) query.set(key, params.get(key)!);
  query.set("limit", "500");
  const { sessions } = await api<{ sessions: Session[] }>("GET", `/sessions?${query}`);
  if (!current()) return () => {};
  const models = [...new Set(sessions.map((s) => s.model))].sort();
  const controls = {
    q: h("input", {
      type: "search",
      name: "q",
      placeholder: "search titles",
      "aria-label": "search titles",
      value: params.get("q") ?? "",
    }) as HTMLInputElement,
    status: select(
      "status",
      "status",
      params.get("status") ?? "",
      ["", "active", "completed", "failed", "aborted"].map((s) => [s, s || "any status"]),
    ),
    workspace: h("input", {
      type: "text",
      name: "workspace",
      placeholder: "workspace",
      "aria-label": "workspace",
      value: params.get("workspace") ?? "",
    }) as HTMLInputElement,
    model: select("model", "model", params.get("model") ?? "", [
      ["", "any model"],
      ...models.map((m) => [m, m] as [string, string]),
    ]),
    since: select(
      "updated since",
      "since",
      params.get("since") ?? "",
      SINCE.map(([k, text]) => [k, text]),
    ),
    minCost: h("input", {
      type: "number",
      name: "minCost",
      min: "0",
      step: "0.01",
      placeholder: "min $",
      "aria-label": "minimum cost in US dollars",
      value: params.get("minCost") ?? "",
    }) as HTMLInputElement,
  };
  const apply = () => {
    const next = new URLSearchParams();
    for (const [key, control] of Object.entries(controls)) if (control.value) next.set(key, control.value);
    location.hash = `#/?${next}`;
  };
  for (const control of Object.values(controls)) control.addEventListener("change", apply);
  const shown = filterSessions(sessions, params);
  const body = h("tbody", {}, ...rows(shown));
  const filters = h(
    "form",
    { class: "filters", role: "search", "aria-label": "filter sessions" },
    ...Object.values(controls),
  );
  filters.addEventListener("submit", (event) => {
    event.preventDefault();
    apply();
  });
  show(
    h("h1", {}, "Sessions"),
    filters,
    sessions.length === 0
      ? h(
          "p",
          { class: "muted" },
          "No sessions yet. Start a run from Workspaces, with POST /runs or with reson run.",
        )
      : shown.length === 0
        ? h(
            "p",
            { class: "muted", id: "no-match" },
            `None of the ${sessions.length} sessions matches these filters.`,
          )
        : h(
            "div",
            { class: "table-wrap" },
            h(
              "table",
              { id: "sessions" },
              h(
                "thead",
                {},
                h(
                  "tr",
                  {},
                  ...["session", "status", "workspace", "model", "tokens", "cost", "updated"].map((c) =>
                    h(
                      "th",
                      {
                        scope: "col",
                        ...(c === "workspace" || c === "model"
                          ? { class: "wide" }
                          : c === "tokens" || c === "cost"
                            ? { class: "num" }
                            : {}),
                      },
                      c,
                    ),
                  ),
                ),
              ),
              body,
            ),
          ),
  );
  return onWaitingChange(() => body.replaceChildren(...rows(shown)));
}
