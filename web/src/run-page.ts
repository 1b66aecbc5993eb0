// A run's page: its stored events read in one page and drawn once (a run of hundreds of steps
// paints at once), then followed live over SSE from the last one read (EventSource rejoins by
// itself with Last-Event-ID; a seq already applied is ignored). The call selected in the
// waterfall is in the URL, so a link or a reload opens on it.
import { api, enableEventStreams } from "./api.js";
import { pendingPrompts, readPromptPayloads } from "./approval-banner.js";
import { applyEvent, applyManifests, EVENT_TYPES, emptyRun, type RunModel } from "./run-state.js";
import { renderRun } from "./run-view.js";
import type { Selection } from "./timeline.js";
import { refreshWaiting } from "./waiting.js";

type RunEvent = Parameters<typeof applyEvent>[1];

const PAGE = 5000;

function selectionOf(params: URLSearchParams): Selection | undefined {
  const [runId, step, toolCallId] = (params.get("sel") ?? "").split("~");
  if (!runId || !step || !Number(step)) return undefined;
  return { runId, step: Number(step), ...(toolCallId ? { toolCallId } : {}) };
}

/** A selector that finds the focused control again in the page drawn anew, if it has one. */
function focusKey(element: Element | null): string | undefined {
  if (!(element instanceof HTMLElement) || element === document.body) return undefined;
  const quote = (value: string | undefined) => `'${CSS.escape(value ?? "")}'`;
  if (element.classList.contains("bar-row")) {
    const call = element.dataset.call;
    return `.bar-row[data-run=${quote(element.dataset.run)}][data-step=${quote(element.dataset.step)}]${call ? `[data-call=${quote(call)}]` : ":not([data-call])"}`;
  }
  const prompt = element.closest<HTMLElement>("[data-prompt]")?.dataset.prompt;
  if (prompt)
    return `[data-prompt=${quote(prompt)}] ${element.tagName.toLowerCase()}${element.className ? `.${element.className.split(" ")[0]}` : ""}`;
  if (element.id) return `#${CSS.escape(element.id)}`;
  const label = element.getAttribute("aria-label");
  return label ? `${element.tagName.toLowerCase()}[aria-label=${quote(label)}]` : undefined;
}

async function readEvents(runId: string, run: RunModel): Promise<void> {
  for (;;) {
    const { events } = await api<{ events: Array<{ seq: number; type: string; data: RunEvent }> }>(
      "GET",
      `/runs/${encodeURIComponent(runId)}/events?format=json&after=${run.lastSeq}&limit=${PAGE}`,
    );
    for (const event of events) applyEvent(run, { ...event.data, type: event.type, seq: event.seq });
    if (events.length < PAGE) return;
  }
}

/** A sub-agent's run, read whole, for the nested bars. */
async function readChild(run: RunModel, childRunId: string): Promise<void> {
  const child = emptyRun(childRunId);
  await readEvents(childRunId, child);
  run.childRuns.set(childRunId, child);
}

export async function runPage(
  id: string,
  params: URLSearchParams,
  show: (node: Node) => void,
  current: () => boolean,
): Promise<() => void> {
  const run: RunModel = emptyRun(id);
  // The stream's cookie is asked for now but waited for only by the stream (an ended run
  // opens none); the two reads go at once: the page paints after the slower, not their sum.
  const streams = enableEventStreams();
  streams.catch(() => {});
  const [view] = await Promise.all([
    api<{
      status: string;
      error: { code: string; message: string } | null;
      parentRunId?: string;
    }>("GET", `/runs/${encodeURIComponent(id)}`),
    readEvents(id, run),
  ]);
  run.state = { status: view.status, error: view.error };
  if (view.parentRunId) run.parentRunId = view.parentRunId;
  let selected = selectionOf(params);
  let closed = false;
  let source: EventSource | undefined;
  const draw = () => {
    if (!current() || closed) return;
    const scrollY = window.scrollY;
    const waterfallScroll = document.getElementById("waterfall")?.scrollTop ?? 0;
    const focused = focusKey(document.activeElement);
    show(renderRun(run, { answered, select, selected, waterfallScroll }));
    window.scrollTo(0, scrollY);
    // The page is drawn anew: the control that had the focus gets it back (keyboard users).
    if (focused) (document.querySelector(focused) as HTMLElement | null)?.focus({ preventScroll: true });
  };
  let frame = false;
  const redraw = () => {
    if (frame) return;
    frame = true;
    requestAnimationFrame(() => {
      frame = false;
      draw();
    });
  };
  function answered(): void {
    void refreshWaiting();
    redraw();
  }
  function select(next: Selection): void {
    selected = next;
    const query = new URLSearchParams(params);
    query.set("sel", [next.runId, next.step, next.toolCallId ?? ""].join("~").replace(/~$/, ""));
    // replaceState: no hashchange, so the page is not read again.
    history.replaceState(null, "", `#/runs/${id}?${query}`);
    draw();
    document.getElementById("panel")?.scrollIntoView({ block: "nearest" });
  }
  const readChildren = () => {
    for (const child of run.children)
      if (child.status && !run.childRuns.has(child.runId))
        void readChild(run, child.runId).then(redraw, () => {});
  };
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
          redraw();
        },
        () => {},
      );
    }, 300);
  };
  // Only a pending approval has a payload to show: no read and no redraw without one.
  const readPayloads = () => {
    if (pendingPrompts(run).length === 0) return;
    void readPromptPayloads(run).then(redraw, () => {});
  };
  draw();
  readManifests();
  readChildren();
  readPayloads();
  const follow = () => {
    if (closed || run.end) return;
    source = new EventSource(`/runs/${encodeURIComponent(id)}/events?after=${run.lastSeq}`);
    const onEvent = (message: MessageEvent<string>) => {
      const event = JSON.parse(message.data) as RunEvent;
      if (!applyEvent(run, event)) return;
      if (event.type === "run_end") source?.close();
      if (event.type === "step_end" || event.type === "run_end") readManifests();
      if (event.type === "sub_trace_completed") readChildren();
      if (event.type === "permission_request") {
        readPayloads();
        void refreshWaiting();
      }
      if (
        event.type === "permission_decision" ||
        event.type === "human_answer" ||
        event.type === "human_question"
      )
        void refreshWaiting();
      redraw();
    };
    for (const type of EVENT_TYPES) source.addEventListener(type, onEvent as EventListener);
  };
  if (!run.end) await streams;
  follow();
  return () => {
    closed = true;
    source?.close();
  };
}
