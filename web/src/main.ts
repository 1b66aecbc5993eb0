// The web view of `reson serve`: a login that keeps the token in this tab, the sessions (with
// filters), a session's runs with a form to start one, the registered workspaces, and a run as
// a trace (run-page.ts); what waits for you shows in the header from any page. Routes are in
// the URL's hash; the token never is.
import { api, dropEarlyReads, forgetToken, savedToken, saveToken, Unauthorized } from "./api.js";
import { channelsView, readChannels } from "./channels-page.js";
import { cost, h, tokens } from "./dom.js";
import { runOptions } from "./run-options.js";
import { runPage } from "./run-page.js";
import { ago, type Session, sessionsPage } from "./sessions-page.js";
import { taskForm } from "./task-form.js";
import { refreshWaiting, stopWaitingWatch } from "./waiting.js";
import { readWorkspaces, workspacesView } from "./workspaces-page.js";

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

function loginPage(message?: string): void {
  nav.replaceChildren();
  stopWaitingWatch();
  const input = h("input", {
    type: "password",
    id: "token",
    autocomplete: "current-password",
    placeholder: "token",
    "aria-label": "token",
  }) as HTMLInputElement;
  const form = h(
    "form",
    { class: "card login" },
    h("h1", {}, "Sign in"),
    h(
      "p",
      { class: "muted" },
      "Paste the token of this reson serve ($RESON_HOME/serve-token). It stays in this tab only.",
    ),
    input,
    message ? h("p", { class: "error", role: "alert" }, message) : null,
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

async function sessionPage(id: string): Promise<void> {
  const mine = navigation;
  const [session, { runs }] = await Promise.all([
    api<Session>("GET", `/sessions/${id}`),
    api<{ runs: Run[] }>("GET", `/sessions/${id}/runs`),
  ]);
  if (mine !== navigation) return;
  const options = runOptions();
  const start = taskForm({
    title: "Start a run in this session",
    placeholder: "a task for this session",
    fields: options.fields,
    post: (task) => api<Run>("POST", `/sessions/${id}/runs`, { task, ...options.values() }),
    started: (runId) => {
      location.hash = `#/runs/${runId}`;
    },
  });
  show(
    h(
      "nav",
      { class: "crumbs", "aria-label": "where this session belongs" },
      h("a", { href: "#/" }, "Sessions"),
      h("span", { "aria-current": "page" }, "session"),
    ),
    h("h1", {}, session.title || session.id),
    h(
      "p",
      { class: "muted" },
      `${session.workspace} · ${session.model} · ${tokens(session.usage.totalTokens)} tokens · ${cost(session.usage)}`,
    ),
    h(
      "div",
      { class: "table-wrap" },
      h(
        "table",
        { id: "runs" },
        h(
          "thead",
          {},
          h(
            "tr",
            {},
            ...["run", "status", "steps", "tokens", "cost", "started"].map((c) =>
              h("th", { scope: "col" }, c),
            ),
          ),
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
                h("td", {}, h("span", { class: `pill status status-${r.status}` }, r.status)),
                h("td", { class: "num" }, r.steps),
                h("td", { class: "num" }, tokens(r.usage.totalTokens)),
                h("td", { class: "num" }, cost(r.usage)),
                h("td", {}, ago(r.createdAt)),
              ),
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

async function channelsPage(): Promise<void> {
  const mine = navigation;
  const data = await readChannels();
  if (mine !== navigation) return;
  show(...channelsView(data, () => void channelsPage()));
}

async function route(): Promise<void> {
  leave?.();
  leave = undefined;
  navigation++;
  const mine = navigation;
  const current = () => mine === navigation;
  if (!savedToken()) return loginPage();
  const [path = "/", search = ""] = location.hash.replace(/^#/, "").split("?");
  const parts = path.split("/").filter(Boolean);
  const here = parts[0] ?? "sessions";
  nav.replaceChildren(
    h("span", { id: "waiting-slot" }),
    h("a", { href: "#/", ...(here === "sessions" ? { "aria-current": "page" } : {}) }, "Sessions"),
    h(
      "a",
      { href: "#/workspaces", ...(here === "workspaces" ? { "aria-current": "page" } : {}) },
      "Workspaces",
    ),
    h("a", { href: "#/channels", ...(here === "channels" ? { "aria-current": "page" } : {}) }, "Channels"),
    h(
      "button",
      {
        type: "button",
        click: () => {
          forgetToken();
          loginPage();
        },
      },
      "Sign out",
    ),
  );
  void refreshWaiting();
  try {
    let stop: (() => void) | undefined;
    if (parts[0] === "runs" && parts[1])
      stop = await runPage(parts[1], new URLSearchParams(search), show, current);
    else if (parts[0] === "sessions" && parts[1]) await sessionPage(parts[1]);
    else if (parts[0] === "workspaces") await workspacesPage();
    else if (parts[0] === "channels") await channelsPage();
    else stop = await sessionsPage(new URLSearchParams(search), show, current);
    // A page the user already left stops at once; the current one when the next replaces it.
    if (current()) leave = stop;
    else stop?.();
  } catch (error) {
    if (error instanceof Unauthorized) {
      forgetToken();
      return loginPage("That token was refused.");
    }
    show(h("p", { class: "error", role: "alert" }, String(error instanceof Error ? error.message : error)));
  }
}

window.addEventListener("hashchange", () => void route());
void route();
// The first page has asked for its reads by now (route runs up to its first wait at once).
dropEarlyReads();
