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

/** Events a read (index.html's early read of a run's first page asks for as many). */
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

/** Sub-agent levels followed below a run (the runtime's own limit is lower). */
const MAX_DEPTH = 8;
/**
 * Sub-agent streams open at once. A browser keeps six connections to a server: the run's own
 * stream and the API reads need the rest. A sub-agent past this is read whole when it ends.
 */
const MAX_CHILD_STREAMS = 3;

/**
 * A run's sub-agents, at every level, for the nested bars: each one read so far, then followed
 * live over SSE while it runs (its bars grow as the parent's do), or read whole once it ended.
 */
class Children {
  readonly #streams = new Set<EventSource>();
  readonly #changed: () => void;
  #closed = false;

  constructor(changed: () => void) {
    this.#changed = changed;
  }

  /** Starts on the sub-agents of `run` not yet known; again after each of its events. */
  track(run: RunModel, depth = 1): void {
    if (this.#closed || depth > MAX_DEPTH) return;
    for (const child of run.children) {
      if (run.childRuns.has(child.runId)) continue;
      // A sub-agent that runs waits for a free stream; one that ended is read now.
      if (!child.status && this.#streams.size >= MAX_CHILD_STREAMS) continue;
      const model = emptyRun(child.runId);
      run.childRuns.set(child.runId, model);
      void readEvents(child.runId, model).then(
        () => {
          this.track(model, depth + 1);
          this.#changed();
          if (!model.end) this.#follow(run, model, depth);
        },
        () => run.childRuns.delete(child.runId),
      );
    }
  }

  #follow(parent: RunModel, model: RunModel, depth: number): void {
    if (this.#closed) return;
    const source = new EventSource(`/runs/${encodeURIComponent(model.runId)}/events?after=${model.lastSeq}`);
    this.#streams.add(source);
    const done = () => {
      source.close();
      this.#streams.delete(source);
      // A stream is free: a sub-agent waiting for one starts.
      this.track(parent, depth);
    };
    const onEvent = (message: MessageEvent<string>) => {
      const event = JSON.parse(message.data) as RunEvent;
      if (!applyEvent(model, event)) return;
      if (event.type === "sub_trace_started" || event.type === "sub_trace_completed")
        this.track(model, depth + 1);
      if (event.type === "run_end") done();
      this.#changed();
    };
    for (const type of EVENT_TYPES) source.addEventListener(type, onEvent as EventListener);
  }

  close(): void {
    this.#closed = true;
    for (const source of this.#streams) source.close();
    this.#streams.clear();
  }
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
    // (At the top there is nothing to keep, and asking would lay the new page out at once.)
    if (scrollY > 0) window.scrollTo(0, scrollY);
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
  const children = new Children(redraw);
  const readChildren = () => children.track(run);
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
      if (event.type === "sub_trace_started" || event.type === "sub_trace_completed") readChildren();
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
    children.close();
  };
}
