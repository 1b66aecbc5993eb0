// The card that starts a run: any fields of the page's own (a workspace to run in), a task box
// and a Start button. `post` sends the task; the new run's id goes to `started`, an error under
// the button.
import { h, visible } from "./dom.js";

export interface TaskFormOptions {
  title: string;
  placeholder: string;
  fields?: Node[];
  post(task: string): Promise<{ id: string }>;
  started(runId: string): void;
}

export function taskForm(options: TaskFormOptions): HTMLElement {
  const task = h("textarea", {
    rows: "3",
    placeholder: options.placeholder,
    "aria-label": "task",
    class: "wide-input",
    required: "",
  }) as HTMLTextAreaElement;
  const status = h("p", { class: "error", role: "status" });
  const form = h(
    "form",
    { class: "card" },
    h("h2", {}, options.title),
    ...(options.fields ?? []),
    task,
    h("button", { class: "primary", type: "submit" }, "Start"),
    status,
  );
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    void options.post(task.value).then(
      (run) => options.started(run.id),
      (error: unknown) => {
        status.textContent = visible(String(error instanceof Error ? error.message : error));
      },
    );
  });
  return form;
}
