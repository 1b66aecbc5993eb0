// The registered workspaces of this serve (GET /workspaces), most recently used first, and a
// form that starts a run in one of them by its id (POST /runs), with a preset, a permission
// mode and a model if chosen.
import { api } from "./api.js";
import { h } from "./dom.js";
import { runOptions } from "./run-options.js";
import { taskForm } from "./task-form.js";

export interface WorkspaceView {
  id: string;
  name: string;
  path: string;
  template: string | null;
  isDefault: boolean;
  lastUsedAt: number | null;
}

/** The page, once its workspaces are read; `started` is told the id of a run it started. */
export function workspacesView(workspaces: WorkspaceView[], started: (runId: string) => void): Node[] {
  if (workspaces.length === 0)
    return [
      h("h1", {}, "Workspaces"),
      h(
        "p",
        { class: "muted" },
        "No workspaces registered. Register one with reson workspace create or POST /workspaces.",
      ),
    ];
  const choice = h(
    "select",
    { "aria-label": "workspace", id: "run-workspace" },
    ...workspaces.map((w) => h("option", { value: w.id }, w.name)),
  ) as HTMLSelectElement;
  const options = runOptions();
  const start = taskForm({
    title: "Start a run in a workspace",
    placeholder: "a task",
    fields: [h("label", { class: "field" }, h("span", {}, "Workspace"), choice), ...options.fields],
    post: (task) =>
      api<{ id: string }>("POST", "/runs", { task, workspace: choice.value, ...options.values() }),
    started,
  });
  return [
    h("h1", {}, "Workspaces"),
    h(
      "table",
      { id: "workspaces" },
      h("thead", {}, h("tr", {}, ...["name", "folder", "template", "last used"].map((c) => h("th", {}, c)))),
      h(
        "tbody",
        {},
        ...workspaces.map((w) =>
          h(
            "tr",
            { "data-workspace": w.id },
            h(
              "td",
              {},
              h("a", { href: `#/?workspace=${encodeURIComponent(w.id)}` }, w.name),
              w.isDefault ? " (default)" : "",
            ),
            h("td", { class: "wide" }, w.path),
            h("td", {}, w.template ?? "-"),
            h("td", {}, w.lastUsedAt ? new Date(w.lastUsedAt).toLocaleString() : "never"),
          ),
        ),
      ),
    ),
    start,
  ];
}

export async function readWorkspaces(): Promise<WorkspaceView[]> {
  return (await api<{ workspaces: WorkspaceView[] }>("GET", "/workspaces")).workspaces;
}
