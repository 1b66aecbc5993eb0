// The banner at the top of a run while it waits for you: each pending approval with what it
// would do (a file change as its diff, the same lines as the terminal's prompt; a command as
// its whole text; other calls by their arguments) and the answers (allow once, for the session,
// deny with a note for the model); each question with its answer box. A card is kept across
// redraws, so a note being typed survives the run's next event.
import { api } from "./api.js";
import { diffLines } from "./diff-lines.js";
import { diffBlock } from "./diff-view.js";
import { h, visible } from "./dom.js";
import type { PromptView, RunModel } from "./run-state.js";

export interface BannerActions {
  answered(): void;
}

const cards = new Map<string, HTMLElement>();

function argumentsBlock(args: Record<string, unknown>): HTMLElement {
  return h(
    "dl",
    { class: "args-list" },
    ...Object.entries(args).flatMap(([name, value]) => [
      h("dt", {}, name),
      h("dd", {}, h("pre", {}, typeof value === "string" ? value : JSON.stringify(value, null, 2))),
    ]),
  );
}

/** What the call would do, as the person deciding needs to see it. */
function callBlock(prompt: PromptView): { title: string; body: HTMLElement | null } {
  const args = prompt.payload?.arguments ?? prompt.arguments ?? {};
  const tool = prompt.tool ?? prompt.payload?.tool ?? "a tool";
  const change = prompt.payload?.change;
  if (change?.ok) {
    const diff = diffLines(change.change);
    const summary =
      change.change.replacements !== undefined
        ? `${change.change.replacements} replacement${change.change.replacements === 1 ? "" : "s"}, +${diff.added} -${diff.removed}`
        : change.change.before === null && !change.change.beforeUnreadable
          ? `new file, ${diff.added} line${diff.added === 1 ? "" : "s"}`
          : `overwrites the file, +${diff.added} -${diff.removed}`;
    return {
      title: `${tool} ${change.change.path} (${summary})`,
      body: diffBlock(diff.lines, `the change ${tool} would make to ${change.change.path}`),
    };
  }
  if (typeof args.command === "string")
    return {
      title: `${tool} wants to run a command`,
      body: h("pre", { class: "command", tabindex: "0", "aria-label": "the command" }, args.command),
    };
  const failing =
    change && !change.ok
      ? h("p", { class: "error" }, `As it stands this call would fail: ${change.message}`)
      : null;
  return { title: tool, body: h("div", {}, argumentsBlock(args), failing) };
}

function permissionCard(run: RunModel, prompt: PromptView, actions: BannerActions): HTMLElement {
  const path = `/runs/${run.runId}/approvals/${encodeURIComponent(prompt.toolCallId)}`;
  const status = h("p", { class: "facts", role: "status" });
  const note = h("input", {
    type: "text",
    class: "note",
    placeholder: "a note for the model (optional)",
    "aria-label": "note for the model with a denial",
  }) as HTMLInputElement;
  const send = (body: { decision: string; note?: string }) => {
    status.textContent = "Sending…";
    void api("POST", path, body).then(
      () => {
        status.textContent = "Answered.";
        actions.answered();
      },
      (error: unknown) => {
        status.textContent = visible(String(error instanceof Error ? error.message : error));
        status.className = "error";
      },
    );
  };
  const call = callBlock(prompt);
  const reason = prompt.payload?.reason
    ? `${prompt.payload.reason}${prompt.payload.rule ? ` (${prompt.payload.rule})` : ""}`
    : prompt.text.replace(/^.*? needs approval: /, "");
  return h(
    "article",
    { class: "prompt-card", "data-prompt": prompt.promptId, "data-waiting-call": prompt.toolCallId },
    h("h3", {}, h("span", { class: "pill warn" }, "Approval"), " ", call.title),
    h("p", { class: "why" }, `Asks because: ${reason}`),
    call.body,
    h(
      "div",
      { class: "actions" },
      h(
        "button",
        { class: "primary", type: "button", click: () => send({ decision: "allow_once" }) },
        "Allow once",
      ),
      prompt.canAllowForSession
        ? h(
            "button",
            { type: "button", click: () => send({ decision: "allow_session" }) },
            "Allow for the session",
          )
        : null,
      note,
      h(
        "button",
        {
          class: "danger",
          type: "button",
          click: () => send({ decision: "deny", ...(note.value.trim() ? { note: note.value.trim() } : {}) }),
        },
        "Deny",
      ),
    ),
    status,
  );
}

function questionCard(run: RunModel, prompt: PromptView, actions: BannerActions): HTMLElement {
  const path = `/runs/${run.runId}/questions/${encodeURIComponent(prompt.toolCallId)}`;
  const input = h("input", {
    type: "text",
    placeholder: "your answer",
    "aria-label": "answer",
  }) as HTMLInputElement;
  if (prompt.choices) input.setAttribute("list", `choices-${prompt.promptId}`);
  const status = h("p", { class: "facts", role: "status" });
  const form = h(
    "form",
    { class: "actions" },
    input,
    prompt.choices
      ? h(
          "datalist",
          { id: `choices-${prompt.promptId}` },
          ...prompt.choices.map((c) => h("option", { value: c })),
        )
      : null,
    h("button", { class: "primary", type: "submit" }, "Answer"),
  );
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    // A choice is offered written out (as every text here): picking it answers with the choice
    // the model offered, as its number does in the terminal.
    const picked = prompt.choices?.find((choice) => visible(choice) === input.value);
    void api("POST", path, { answer: picked ?? input.value }).then(actions.answered, (error: unknown) => {
      status.textContent = visible(String(error instanceof Error ? error.message : error));
      status.className = "error";
    });
  });
  return h(
    "article",
    { class: "prompt-card", "data-prompt": prompt.promptId },
    h("h3", {}, h("span", { class: "pill warn" }, "Question"), " ", `Question: ${prompt.text}`),
    // One item a choice: a choice holding ", " cannot read as two.
    prompt.choices
      ? h(
          "ol",
          { class: "facts choices", "aria-label": "choices" },
          ...prompt.choices.map((choice) => h("li", {}, choice)),
        )
      : null,
    form,
    status,
  );
}

/** The run's prompts still waiting for an answer. */
export function pendingPrompts(run: RunModel): PromptView[] {
  const fromTools = run.steps.flatMap((step) =>
    step.tools.flatMap((tool) => (tool.prompt ? [tool.prompt] : [])),
  );
  return [...fromTools, ...run.questions].filter((prompt) => !prompt.outcome && !run.end);
}

export function waitingBanner(run: RunModel, actions: BannerActions): HTMLElement | null {
  const pending = pendingPrompts(run);
  const live = new Set(pending.map((p) => p.promptId));
  for (const id of cards.keys()) if (!live.has(id)) cards.delete(id);
  if (pending.length === 0) return null;
  return h(
    "section",
    { class: "waiting", id: "waiting", "aria-label": "Waiting for you" },
    h("h2", {}, h("span", { class: "dot", "aria-hidden": "true" }), "Waiting for you"),
    ...pending.map((prompt) => {
      // A card drawn before the payload arrived is drawn again with it (the diff).
      const key = `${prompt.promptId}:${prompt.payload ? 1 : 0}`;
      let card = cards.get(prompt.promptId);
      if (!card || card.dataset.key !== key) {
        card =
          prompt.kind === "permission"
            ? permissionCard(run, prompt, actions)
            : questionCard(run, prompt, actions);
        card.dataset.key = key;
        cards.set(prompt.promptId, card);
      }
      return card;
    }),
  );
}

/** Attaches what the server holds for each pending prompt (GET /runs/:id/prompts). */
export async function readPromptPayloads(run: RunModel): Promise<void> {
  const { prompts } = await api<{ prompts: Array<{ id: string; payload: PromptView["payload"] }> }>(
    "GET",
    `/runs/${encodeURIComponent(run.runId)}/prompts`,
  );
  for (const prompt of pendingPrompts(run)) {
    const held = prompts.find((p) => p.id === prompt.promptId);
    if (held?.payload) prompt.payload = held.payload;
  }
}
