// Whether a run has read content from outside the user's own files, and which reads made it so.
// A run starts trusted, or untrusted when its session or the run that started it already was;
// the first external read marks it, and nothing in the run unmarks it (the content stays in the
// history the model sees). The list is kept with every checkpoint, so a resumed run and the
// session's later runs stay untrusted.
import type { UntrustedSource } from "../core/events.js";
import type { ToolDefinition, ToolResult } from "../tools/index.js";

/** Sources kept per run: enough to say why, never a growing list. */
const MAX_SOURCES = 20;

/**
 * The `tool` of the source that makes a run's task itself untrusted: a chat message from someone
 * other than the owner. Such a task is remembered as untrusted, like an answer written after
 * untrusted content.
 */
export const CHANNEL_MESSAGE_SOURCE = "channel message";

/** Whether run `runId`'s own task is among `sources` (a chat message from someone other than the owner). */
export function taskIsUntrusted(runId: string, sources: readonly UntrustedSource[] | undefined): boolean {
  return sources?.some((source) => source.runId === runId && source.tool === CHANNEL_MESSAGE_SOURCE) ?? false;
}

/**
 * Where a new run's untrust comes from, when it starts untrusted: its task's sender (a chat
 * message), its session's earlier runs, or the run that started it (a sub-agent).
 */
export interface InheritedUntrust {
  sources: readonly UntrustedSource[];
  via: "session" | "parent_run" | "message";
}

/** What the permission check says once a run is untrusted (the event's reason). */
export const UNTRUSTED_CONSEQUENCES =
  "from here on, requests to hosts no rule names, filling in secrets and changes that steer later runs " +
  "(instruction files, skills, .mcp.json, memory, learned rules) need a rule or the user's approval";

/**
 * Results that never reached the outside: the call was refused (by a rule, its arguments, a
 * check of reson's before any request) so it read nothing.
 */
const NOTHING_READ = new Set([
  "tool_denied",
  "tool_invalid_arguments",
  "tool_not_found",
  "web_fetch_refused",
  "browser_refused",
  "secret_unavailable",
]);

export class RunTrust {
  readonly #sources: UntrustedSource[];

  /** `onMarked`: the run became untrusted by reading `source` (called once, at the change). */
  constructor(
    initial: readonly UntrustedSource[] = [],
    private readonly onMarked?: (source: UntrustedSource) => void | Promise<void>,
  ) {
    this.#sources = initial.slice(0, MAX_SOURCES);
  }

  get untrusted(): boolean {
    return this.#sources.length > 0;
  }

  get sources(): readonly UntrustedSource[] {
    return this.#sources;
  }

  /** Notes `source`; the first one makes the run untrusted (and is announced). */
  async mark(source: UntrustedSource): Promise<void> {
    if (this.#sources.some((known) => known.toolCallId === source.toolCallId)) return;
    const first = this.#sources.length === 0;
    if (this.#sources.length < MAX_SOURCES) this.#sources.push(source);
    if (first) await this.onMarked?.(source);
  }
}

/**
 * The untrusted content a call's result carries, if any: every result of an external tool that
 * got as far as asking the outside, and any result that says it carries such content.
 */
export function untrustedRead(
  runId: string,
  call: { id: string; name: string; arguments: Record<string, unknown> },
  tool: ToolDefinition | undefined,
  result: ToolResult,
): UntrustedSource | undefined {
  const external = tool?.external === true && !NOTHING_READ.has(result.error?.code ?? "");
  if (!external && result.untrustedOrigin === undefined) return undefined;
  const url = typeof call.arguments.url === "string" ? call.arguments.url : undefined;
  const origin = result.untrustedOrigin ?? url;
  return { runId, toolCallId: call.id, tool: call.name, ...(origin ? { origin: origin.slice(0, 300) } : {}) };
}

/** One line naming a source, for reasons and hints: "web_fetch https://x (call c1)". */
export function describeSource(source: UntrustedSource): string {
  return `${source.tool}${source.origin ? ` ${source.origin}` : ""}`;
}
