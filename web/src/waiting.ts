// "Waiting for you", from any page: what this serve's runs wait on from a person, pushed by
// GET /prompts/events as it changes (read every few seconds from GET /prompts only while that
// stream is down) and read after each answer, shown as a badge in the header (a link to the
// first run held up), a count in the tab's title, and to the pages that mark their rows.
import { api, enableEventStreams } from "./api.js";
import { h } from "./dom.js";

export interface WaitingPrompt {
  id: string;
  runId: string;
  sessionId: string | null;
  task: string | null;
  kind: "permission" | "question";
  payload: unknown;
  expiresAt: number | null;
}

const POLL_MS = 2000;
const TITLE = "reson";

let prompts: WaitingPrompt[] = [];
let timer: ReturnType<typeof setTimeout> | undefined;
const listeners = new Set<() => void>();

export function waitingPrompts(): WaitingPrompt[] {
  return prompts;
}

/** How many prompts each session's runs wait on. */
export function waitingBySession(): Map<string, number> {
  const counts = new Map<string, number>();
  for (const prompt of prompts)
    if (prompt.sessionId) counts.set(prompt.sessionId, (counts.get(prompt.sessionId) ?? 0) + 1);
  return counts;
}

/** Told after each read; returns the unsubscribe. */
export function onWaitingChange(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

function drawBadge(): void {
  const slot = document.getElementById("waiting-slot");
  const count = prompts.length;
  document.title = count > 0 ? `(${count}) waiting · ${TITLE}` : TITLE;
  if (!slot) return;
  if (count === 0) {
    slot.replaceChildren();
    return;
  }
  const first = prompts[0]!;
  slot.replaceChildren(
    h(
      "a",
      { class: "badge waiting-badge", id: "waiting-badge", href: `#/runs/${first.runId}` },
      h("span", { class: "dot", "aria-hidden": "true" }),
      `${count} waiting for you`,
    ),
  );
}

function take(next: WaitingPrompt[]): void {
  const changed = next.map((p) => p.id).join() !== prompts.map((p) => p.id).join();
  prompts = next;
  drawBadge();
  if (changed) for (const listener of listeners) listener();
}

/** The stream of what waits; while it delivers, nothing is polled. */
let source: EventSource | undefined;
let streaming = false;

function watch(): void {
  if (source) return;
  const opening = new EventSource("/prompts/events");
  source = opening;
  opening.addEventListener("prompts", (message) => {
    streaming = true;
    clearTimeout(timer);
    take((JSON.parse((message as MessageEvent<string>).data) as { prompts: WaitingPrompt[] }).prompts);
  });
  // Down (the server restarting; EventSource tries again by itself): poll until it is back.
  opening.addEventListener("error", () => {
    if (source !== opening) return;
    streaming = false;
    clearTimeout(timer);
    timer = setTimeout(() => void refreshWaiting(), POLL_MS);
  });
}

/** Reads now; then the stream tells of changes, or (while it is down) a read every few seconds. */
export async function refreshWaiting(): Promise<void> {
  clearTimeout(timer);
  try {
    take((await api<{ prompts: WaitingPrompt[] }>("GET", "/prompts")).prompts);
    if (!source) await enableEventStreams().then(watch);
  } catch {
    // Signed out or the server restarting: the next read tries again.
  }
  if (!streaming) timer = setTimeout(() => void refreshWaiting(), POLL_MS);
}

export function stopWaitingWatch(): void {
  clearTimeout(timer);
  source?.close();
  source = undefined;
  streaming = false;
  prompts = [];
  drawBadge();
}
