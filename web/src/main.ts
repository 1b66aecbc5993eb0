// The web view of `reson serve`: a login that keeps the token in this tab, the sessions
// (newest first, filtered by status and workspace), a session's runs with a form to start
// one, the registered workspaces with a form to start a run in one, and a run live over its
// event stream. Routes are in the URL's hash; the token never is.
import { api, enableEventStreams, forgetToken, savedToken, saveToken, Unauthorized } from "./api.js";
import { cost, h, tokens } from "./dom.js";
import { applyEvent, applyManifests, EVENT_TYPES, emptyRun, type RunModel } from "./run-state.js";
import { renderRun } from "./run-view.js";
import { taskForm } from "./task-form.js";
import { readWorkspaces, workspacesView } from "./workspaces-page.js";

interface Session {
  id: string;
  workspace: string;
  title: string;
  status: string;
  model: string;
  usage: { totalTokens: number; costUsd: number; unpricedTokens?: number };
  createdAt: number;
  updatedAt: number;
}

interface Run {
  id: string;
  task: string;
  status: string;
  steps: number;
  usage: { totalTokens: number; costUsd: number; unpricedTokens?: number };
  createdAt: number;
}

const main = document.getElementById("main")!;
const nav = document.getElementById("nav")!;
/** What the current page must stop when another replaces it (its event stream). */
let leave: (() => void) | undefined;
/** Counts navigations: a page whose data arrives after the user moved on draws nothing. */
let navigation = 0;

function show(...children: Node[]): void {
  main.replaceChildren(...children);
}

function ago(ms: number): string {
  const s = Math.round((Date.now() - ms) / 1000);
  if (s < 60) return `${s}s ago`;
  if (s < 3600) return `${Math.round(s / 60)}m ago`;
  return `${Math.round(s / 3600)}h ago`;
}

function loginPage(message?: string): void {
  nav.replaceChildren();
  const input = h("input", {
    type: "password",
    id: "token",
    autocomplete: "current-password",
    placeholder: "token",
  }) as HTMLInputElement;
  const form = h(
    "form",
    { class: "card login" },
    h("h2", {}, "Sign in"),
    h(
      "p",
      { class: "muted" },
      "Paste the token of this reson serve ($RESON_HOME/serve-token). It stays in this tab only.",
    ),
    input,
    message ? h("p", { class: "error" }, message) : null,
    h("button", { class: "primary", type: "submit" }, "Sign in"),
  );
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    saveToken(input.value.trim());
    void route();
  });
  show(form);
  input.focus();
}

async function sessionsPage(params: URLSearchParams): Promise<void> {
  const status = params.get("status") ?? "";
  const workspace = params.get("workspace") ?? "";
  const query = new URLSearchParams();
  if (status) query.set("status", status);
  if (workspace) query.set("workspace", workspace);
  const mine = navigation;
  const { sessions } = await api<{ sessions: Session[] }>("GET", `/sessions?${query}`);
  if (mine !== navigation) return;
  const statusSelect = h(
    "select",
    { "aria-label": "status" },
    ...["", "active", "completed", "failed", "aborted"].map((s) => {
      const option = h("option", { value: s }, s || "any status") as HTMLOptionElement;
      option.selected = s === status;
      return option;
    }),
  ) as HTMLSelectElement;
  const workspaceInput = h("input", {
    type: "text",
    placeholder: "workspace",
    value: workspace,
    "aria-label": "workspace",
  }) as HTMLInputElement;
  const filter = () => {
    const next = new URLSearchParams();
    if (statusSelect.value) next.set("status", statusSelect.value);
    if (workspaceInput.value) next.set("workspace", workspaceInput.value);
    location.hash = `#/?${next}`;
  };
  statusSelect.addEventListener("change", filter);
  workspaceInput.addEventListener("change", filter);
  show(
    h("h2", {}, "Sessions"),
    h("div", { class: "filters" }, statusSelect, workspaceInput),
    sessions.length === 0
      ? h("p", { class: "muted" }, "No sessions yet. Start a run with POST /runs or reson run.")
      : h(
          "table",
          { id: "sessions" },
          h(
            "thead",
            {},
            h(
              "tr",
              {},
              ...["session", "status", "workspace", "model", "tokens", "cost", "updated"].map((c) =>
                h("th", c === "workspace" || c === "model" ? { class: "wide" } : {}, c),
              ),
            ),
          ),
          h(
            "tbody",
            {},
            ...sessions.map((s) =>
              h(
                "tr",
                {},
                h("td", {}, h("a", { href: `#/sessions/${s.id}` }, s.title || s.id)),
                h("td", { class: `status status-${s.status}` }, s.status),
                h("td", { class: "wide" }, s.workspace),
                h("td", { class: "wide" }, s.model),
                h("td", {}, tokens(s.usage.totalTokens)),
                h("td", {}, cost(s.usage)),
                h("td", {}, ago(s.updatedAt)),
              ),
            ),
          ),
        ),
  );
}

async function sessionPage(id: string): Promise<void> {
  const mine = navigation;
  const [session, { runs }] = await Promise.all([
    api<Session>("GET", `/sessions/${id}`),
    api<{ runs: Run[] }>("GET", `/sessions/${id}/runs`),
  ]);
  if (mine !== navigation) return;
  const start = taskForm({
    title: "Start a run",
    placeholder: "a task for this session",
    post: (task) => api<Run>("POST", `/sessions/${id}/runs`, { task }),
    started: (runId) => {
      location.hash = `#/runs/${runId}`;
    },
  });
  show(
    h("h2", {}, session.title || session.id),
    h(
      "p",
      { class: "muted" },
      `${session.workspace} · ${session.model} · ${tokens(session.usage.totalTokens)} tokens · ${cost(session.usage)}`,
    ),
    h(
      "table",
      { id: "runs" },
      h(
        "thead",
        {},
        h("tr", {}, ...["run", "status", "steps", "tokens", "cost", "started"].map((c) => h("th", {}, c))),
      ),
      h(
        "tbody",
        {},
        ...[...runs]
          .reverse()
          .map((r) =>
            h(
              "tr",
              {},
              h("td", {}, h("a", { href: `#/runs/${r.id}` }, r.task.slice(0, 80) || r.id)),
              h("td", { class: `status status-${r.status}` }, r.status),
              h("td", {}, r.steps),
              h("td", {}, tokens(r.usage.totalTokens)),
              h("td", {}, cost(r.usage)),
              h("td", {}, ago(r.createdAt)),
            ),
          ),
      ),
    ),
    start,
  );
}

async function workspacesPage(): Promise<void> {
  const mine = navigation;
  const workspaces = await readWorkspaces();
  if (mine !== navigation) return;
  show(
    ...workspacesView(workspaces, (runId) => {
      location.hash = `#/runs/${runId}`;
    }),
  );
}

async function runPage(id: string): Promise<void> {
  const mine = navigation;
  const view = await api<{ status: string; error: { code: string; message: string } | null }>(
    "GET",
    `/runs/${id}`,
  );
  await enableEventStreams();
  const run: RunModel = emptyRun(id);
  run.state = { status: view.status, error: view.error };
  // Nothing of this page may draw once another replaced it (a late manifest read, a frame).
  const draw = () => {
    if (mine === navigation) show(renderRun(run, { answered: draw }));
  };
  if (mine !== navigation) return;
  draw();
  // EventSource rejoins by itself after a drop, sending Last-Event-ID; applyEvent ignores any
  // seq it has already applied.
  const source = new EventSource(`/runs/${encodeURIComponent(id)}/events`);
  let pending = false;
  // The context manifest of each step is in its committed record, read after the step ends.
  let manifestsDue = false;
  const readManifests = () => {
    if (manifestsDue) return;
    manifestsDue = true;
    setTimeout(() => {
      manifestsDue = false;
      void api<{ steps: unknown[] }>("GET", `/runs/${encodeURIComponent(id)}/trace`).then(
        ({ steps }) => {
          applyManifests(run, steps);
          draw();
        },
        () => {},
      );
    }, 300);
  };
  const onEvent = (message: MessageEvent<string>) => {
    const event = JSON.parse(message.data) as Parameters<typeof applyEvent>[1];
    if (!applyEvent(run, event)) return;
    if (event.type === "run_end") source.close();
    if (event.type === "step_end" || event.type === "run_end") readManifests();
    if (pending) return;
    pending = true;
    requestAnimationFrame(() => {
      pending = false;
      draw();
    });
  };
  for (const type of EVENT_TYPES) source.addEventListener(type, onEvent as EventListener);
  leave = () => source.close();
}

async function route(): Promise<void> {
  leave?.();
  leave = undefined;
  navigation++;
  if (!savedToken()) return loginPage();
  nav.replaceChildren(
    h("a", { href: "#/" }, "Sessions"),
    h("a", { href: "#/workspaces" }, "Workspaces"),
    h(
      "button",
      {
        click: () => {
          forgetToken();
          loginPage();
        },
      },
      "Sign out",
    ),
  );
  const [path = "/", search = ""] = location.hash.replace(/^#/, "").split("?");
  const parts = path.split("/").filter(Boolean);
  try {
    if (parts[0] === "runs" && parts[1]) await runPage(parts[1]);
    else if (parts[0] === "sessions" && parts[1]) await sessionPage(parts[1]);
    else if (parts[0] === "workspaces") await workspacesPage();
    else await sessionsPage(new URLSearchParams(search));
  } catch (error) {
    if (error instanceof Unauthorized) {
      forgetToken();
      return loginPage("That token was refused.");
    }
    show(h("p", { class: "error" }, String(error instanceof Error ? error.message : error)));
  }
}

window.addEventListener("hashchange", () => void route());
void route();
