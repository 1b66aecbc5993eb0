// The tool registry: what tools there are, what the provider is told about them, and the
// one path every call takes: look up -> validate -> execute -> truncate (keeping a cut output
// whole as an artifact where the run can) -> time -> count.
// `execute` never throws for a tool-level problem; everything becomes a ToolResult.
import type { TSchema } from "typebox";
import { abortError } from "../core/abort.js";
import { ResonError, serializeError } from "../core/errors.js";
import { matchUrlPattern } from "../core/url-pattern.js";
import { splitLines } from "./builtin/numbered-lines.js";
import { ToolStatsTable } from "./stats.js";
import { DEFAULT_TRUNCATION_LIMITS, type TruncationLimits, truncateOutput } from "./truncate.js";
import type {
  FileChange,
  PreviewContext,
  SecretAccess,
  ToolCallRequest,
  ToolContext,
  ToolDefinition,
  ToolOutput,
  ToolPreview,
  ToolResult,
  ToolSpec,
  ToolStats,
  TruncationInfo,
} from "./types.js";
import { validateArguments } from "./validation.js";

/** Tool names every provider accepts. */
const TOOL_NAME = /^[A-Za-z0-9_-]{1,64}$/;

export interface ToolRegistryOptions {
  /** Central truncation: lines kept of a tool's output; default 2000. */
  maxOutputLines?: number;
  /** Central truncation: characters kept of a tool's output; default 50,000. */
  maxOutputChars?: number;
  /**
   * Where the run can keep artifacts (ToolContext.saveArtifact): outputs longer than this
   * (or than the line limit) are cut to it and saved whole; default maxOutputChars.
   */
  artifactThresholdChars?: number;
}

export class ToolRegistry {
  private readonly tools = new Map<string, ToolDefinition>();
  private readonly table = new ToolStatsTable();
  private readonly limits: TruncationLimits;
  private readonly artifactLimits: TruncationLimits;

  constructor(options: ToolRegistryOptions = {}) {
    this.limits = {
      maxLines: options.maxOutputLines ?? DEFAULT_TRUNCATION_LIMITS.maxLines,
      maxChars: options.maxOutputChars ?? DEFAULT_TRUNCATION_LIMITS.maxChars,
    };
    this.artifactLimits = {
      maxLines: this.limits.maxLines,
      maxChars: Math.min(this.limits.maxChars, options.artifactThresholdChars ?? this.limits.maxChars),
    };
  }

  /** Adds a tool; its name must be unique and match [A-Za-z0-9_-]{1,64}. */
  register<S extends TSchema>(tool: ToolDefinition<S>): this {
    if (!TOOL_NAME.test(tool.name)) {
      throw new ResonError("usage_error", `Tool name ${JSON.stringify(tool.name)} is not valid.`, {
        hint: "Use 1 to 64 letters, digits, _ or -.",
      });
    }
    if (this.tools.has(tool.name)) {
      throw new ResonError("usage_error", `A tool named ${tool.name} is already registered.`);
    }
    this.tools.set(tool.name, tool);
    this.table.add(tool.name);
    return this;
  }

  get(name: string): ToolDefinition | undefined {
    return this.tools.get(name);
  }

  has(name: string): boolean {
    return this.tools.has(name);
  }

  /** In registration order. */
  list(): ToolDefinition[] {
    return [...this.tools.values()];
  }

  /**
   * What the provider is told about the tools. With `order` (tool names, e.g. from
   * `orderByUse`), the named tools come first in that order, then the others in registration
   * order; unknown and repeated names are skipped. Keep one order for a whole session, so the
   * tools part of the prompt stays byte-identical and prompt caches keep hitting.
   */
  specs(order?: readonly string[], context: { url?: string } = {}): ToolSpec[] {
    return this.ordered(order)
      .filter((tool) => offeredAt(tool, context.url))
      .map((tool) => ({
        name: tool.name,
        description: tool.description,
        parameters: tool.parameters,
      }));
  }

  private ordered(order: readonly string[] | undefined): ToolDefinition[] {
    if (!order || order.length === 0) return this.list();
    const first: ToolDefinition[] = [];
    for (const name of new Set(order)) {
      const tool = this.tools.get(name);
      if (tool) first.push(tool);
    }
    const named = new Set(first);
    return [...first, ...this.list().filter((tool) => !named.has(tool))];
  }

  /** Per-tool statistics since the registry was made (a copy). */
  stats(): Record<string, ToolStats> {
    return this.table.snapshot();
  }

  async execute(call: ToolCallRequest, ctx: ToolContext): Promise<ToolResult> {
    const started = performance.now();
    const tool = this.tools.get(call.name);
    if (!tool) {
      const available = [...this.tools.keys()].join(", ") || "(none)";
      const error = new ResonError("tool_not_found", `There is no tool named ${JSON.stringify(call.name)}.`, {
        hint: `Available tools: ${available}.`,
      });
      return this.finish(call.name, started, { ok: false, content: "", truncated: false, error });
    }
    if (ctx.signal.aborted) return this.failed(tool, started, abortError(ctx.signal));

    const validated = validateArguments(tool.name, tool.checkedParameters ?? tool.parameters, call.arguments);
    if (!validated.ok) return this.failed(tool, started, validated.error);

    let output: ToolOutput;
    try {
      output = await untilAborted(tool.execute(validated.value, { ...ctx, toolCallId: call.id }), ctx.signal);
      if (typeof output?.content !== "string") {
        throw new ResonError("tool_failed", `${tool.name} returned no content (a bug in the tool).`);
      }
      // Masked before anything else sees it: history, artifacts, traces, events, the terminal.
      if (ctx.secrets) output = redactOutput(output, ctx.secrets);
    } catch (thrown) {
      if (ctx.signal.aborted) return this.failed(tool, started, abortError(ctx.signal));
      const error =
        thrown instanceof ResonError
          ? redactError(thrown, ctx.secrets)
          : new ResonError(
              "tool_failed",
              `${tool.name} failed: ${redactText(thrown instanceof Error ? thrown.message : String(thrown), ctx.secrets)}`,
              {
                cause: thrown,
              },
            );
      return this.failed(tool, started, error);
    }

    const save = tool.saveOverflowAsArtifact === false ? undefined : ctx.saveArtifact;
    const options = { mode: tool.truncation ?? "head", hint: output.truncationHint } as const;
    let cut = truncateOutput(output.content, save ? this.artifactLimits : this.limits, options);
    let artifactId: string | undefined;
    if (cut.truncated && save) {
      try {
        artifactId = await untilAborted(
          save(output.content, { tool: tool.name, toolCallId: call.id }),
          ctx.signal,
        );
        cut = truncateOutput(output.content, this.artifactLimits, {
          mode: options.mode,
          hint: artifactHint(output.content, artifactId),
        });
      } catch (thrown) {
        if (ctx.signal.aborted) return this.failed(tool, started, abortError(ctx.signal));
        // Not fatal: the result is cut as it would be without artifacts, and says why.
        cut = truncateOutput(output.content, this.limits, {
          mode: options.mode,
          hint: unsavedHint(output.truncationHint, thrown),
        });
      }
    }
    const result = this.finish(tool.name, started, {
      ok: output.error === undefined,
      content: cut.text,
      truncated: cut.truncated || output.truncated === true,
      error: output.error,
    });
    if (artifactId !== undefined) result.meta.artifactId = artifactId;
    if (output.longTermMemory !== undefined) {
      // The short line that stays in history still names where the whole output is.
      result.longTermMemory =
        artifactId === undefined
          ? output.longTermMemory
          : `${output.longTermMemory} [full output: artifact ${artifactId}]`;
    }
    if (output.includeOutputOnlyOnce) result.includeOutputOnlyOnce = true;
    if (output.pinAs !== undefined && result.ok) result.pinAs = output.pinAs;
    if (output.untrustedOrigin !== undefined) result.untrustedOrigin = output.untrustedOrigin;
    return result;
  }

  /**
   * What `call` would change, for the user asked to approve it: undefined when the tool has no
   * preview or the arguments are not valid (the call will say so when it runs). Values of the
   * user's secrets in the texts are masked, as in every output.
   */
  async preview(
    call: ToolCallRequest,
    ctx: PreviewContext & { secrets?: SecretAccess },
  ): Promise<ToolPreview | undefined> {
    const tool = this.tools.get(call.name);
    if (!tool?.preview) return undefined;
    const validated = validateArguments(tool.name, tool.checkedParameters ?? tool.parameters, call.arguments);
    if (!validated.ok) return undefined;
    try {
      const change = await untilAborted(tool.preview(validated.value, ctx), ctx.signal);
      return { ok: true, change: redactChange(change, ctx.secrets) };
    } catch (thrown) {
      if (ctx.signal.aborted) throw abortError(ctx.signal);
      const message = thrown instanceof Error ? thrown.message : String(thrown);
      return { ok: false, message: redactText(message, ctx.secrets) };
    }
  }

  private failed(tool: ToolDefinition, started: number, error: ResonError): ToolResult {
    return this.finish(tool.name, started, { ok: false, content: "", truncated: false, error });
  }

  private finish(
    name: string,
    started: number,
    outcome: { ok: boolean; content: string; truncated: boolean; error: ResonError | undefined },
  ): ToolResult {
    const durationMs = Math.round(performance.now() - started);
    if (this.tools.has(name)) this.table.record(name, outcome.ok, durationMs, Date.now());
    const result: ToolResult = {
      ok: outcome.ok,
      content: outcome.content,
      meta: { tool: name, durationMs, truncated: outcome.truncated },
    };
    if (outcome.error) result.error = serializeError(outcome.error);
    return result;
  }
}

/** Whether a tool with URL patterns is offered at `url` (never where there is no URL). */
function offeredAt(tool: ToolDefinition, url: string | undefined): boolean {
  if (!tool.urlPatterns) return true;
  if (url === undefined) return false;
  return tool.urlPatterns.some((pattern) => matchUrlPattern(pattern, url));
}

function redactText(text: string, secrets: SecretAccess | undefined): string {
  return secrets ? secrets.redact(text) : text;
}

function redactChange(change: FileChange, secrets: SecretAccess | undefined): FileChange {
  if (!secrets) return change;
  return {
    ...change,
    before: change.before === null ? null : secrets.redact(change.before),
    after: secrets.redact(change.after),
  };
}

function redactError(error: ResonError, secrets: SecretAccess | undefined): ResonError {
  if (!secrets) return error;
  const message = secrets.redact(error.message);
  const hint = error.hint === undefined ? undefined : secrets.redact(error.hint);
  const details =
    error.details === undefined ? undefined : JSON.parse(secrets.redact(JSON.stringify(error.details)));
  if (
    message === error.message &&
    hint === error.hint &&
    JSON.stringify(details) === JSON.stringify(error.details)
  )
    return error;
  return new ResonError(error.code, message, {
    ...(hint !== undefined ? { hint } : {}),
    ...(details !== undefined ? { details } : {}),
  });
}

function redactOutput(output: ToolOutput, secrets: SecretAccess): ToolOutput {
  return {
    ...output,
    content: secrets.redact(output.content),
    ...(output.longTermMemory !== undefined ? { longTermMemory: secrets.redact(output.longTermMemory) } : {}),
    ...(output.error ? { error: redactError(output.error, secrets) } : {}),
  };
}

/** The marker's hint for an output kept whole as artifact `id`: its size and where to read on. */
function artifactHint(content: string, id: string): (cut: TruncationInfo) => string {
  const lines = splitLines(content).length;
  return (cut) =>
    `Full output (${lines} line${lines === 1 ? "" : "s"}, ${content.length} chars) saved as artifact ${id}; ` +
    `page through it with read_artifact {"id": "${id}", "offset": ${cut.shownLines + 1}}.`;
}

/** The tool's own hint (or the usual advice) and why the artifact was not saved. */
function unsavedHint(hint: ToolOutput["truncationHint"], thrown: unknown): (cut: TruncationInfo) => string {
  const why = `The full output could not be saved as an artifact (${thrown instanceof Error ? thrown.message : String(thrown)}).`;
  return (cut) => {
    const own =
      hint === undefined
        ? "Ask for less at a time to see the rest."
        : typeof hint === "function"
          ? hint(cut)
          : hint;
    return `${own} ${why}`;
  };
}

/**
 * Settles with `work`, or rejects as soon as `signal` aborts, so a tool that ignores its
 * signal cannot hold up the loop (its late result is dropped).
 */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  work.catch(() => {}); // a late rejection after an abort is not an unhandled rejection
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(abortError(signal));
    signal.addEventListener("abort", onAbort, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(error);
      },
    );
  });
}

/**
 * Tool names by use, for `ToolRegistry.specs(order)`: most calls first; ties by the latest
 * call, then by name, so the same statistics always give the same order. Tools never called
 * are left out (specs puts them after, in registration order).
 */
export function orderByUse(
  stats: ReadonlyArray<{ tool: string; calls: number; lastCallAt?: number | null }>,
): string[] {
  return stats
    .filter((s) => s.calls > 0)
    .sort(
      (a, b) =>
        b.calls - a.calls ||
        (b.lastCallAt ?? 0) - (a.lastCallAt ?? 0) ||
        (a.tool < b.tool ? -1 : a.tool > b.tool ? 1 : 0),
    )
    .map((s) => s.tool);
}
