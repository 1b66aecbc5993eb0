// The tool contract: a name, a description, a TypeBox schema, flags, and `execute`.
// A tool returns its output or throws a ResonError; the registry turns either into a
// ToolResult, validates arguments first, truncates centrally and keeps statistics.
import type { Static, TSchema } from "typebox";
import type { ResonError, SerializedError } from "../core/errors.js";
import type { UntrustedSource } from "../core/events.js";
import type { Workspace } from "../workspace/index.js";
import type { GoalTree } from "./goal-tree.js";

export interface ToolContext {
  workspace: Workspace;
  signal: AbortSignal;
  runId: string;
  toolCallId: string;
  /** The run's goal tree, for the `goal` tool; absent where a run keeps no goals. */
  goals?: GoalTree;
  /**
   * Keeps an output too large for the context whole, as an artifact the model can page
   * through with read_artifact; resolves to its id. Absent: large outputs are only cut.
   */
  saveArtifact?: (content: string, meta: ArtifactMeta) => Promise<string>;
  /** Lines `offset` (1-based) onwards, at most `limit`, of an artifact; undefined for an unknown id. */
  readArtifact?: (id: string, offset: number, limit: number) => Promise<ArtifactPage | undefined>;
  /** The user's secrets: placeholders filled in for the executor only, values masked on the way back. */
  secrets?: SecretAccess;
  /** The session's current URL (set by URL-aware tools): which URL-scoped tools are offered. */
  url?: string;
  /** Sets the session's current URL (a URL-aware tool after it reached one). */
  setUrl?: (url: string) => void;
  /** Asks the user and waits for the answer (ask_human); absent: no human is there to ask. */
  askHuman?: AskHuman;
  /**
   * Set once the run has read untrusted content (see ToolDefinition.external): the reads that
   * made it so. Commands then cannot change the files that steer later runs.
   */
  untrusted?: readonly UntrustedSource[];
  /**
   * Decides a request the call did not name itself: a redirect, a page's own navigation or
   * subresource. Resolves to why it may not go there (then nothing is sent to it, not even a
   * DNS lookup), or undefined. Absent: only the tool's own checks apply.
   */
  checkHop?: (hop: Hop) => Promise<string | undefined>;
}

/** A request a tool is about to make that the permission check of its call did not see. */
export interface Hop {
  url: string;
  /** redirect: a server's answer sends it on; navigation: a page moves the tab (or a new one); subresource: a page loads something. */
  kind: "redirect" | "navigation" | "subresource";
  /** The tool the request belongs to, as rules name it (web_fetch, browser_navigate). */
  tool: string;
  /** The URL it comes from (the request redirected, the page navigating). */
  from?: string;
}

/** What a preview may use: the workspace to read, nothing to write with. */
export interface PreviewContext {
  workspace: Workspace;
  signal: AbortSignal;
}

/** A file a call would create or change: its text before and after. */
export interface FileChange {
  /** The path as the call names it. */
  path: string;
  /** The text now; null when the call creates the file. */
  before: string | null;
  after: string;
  /** Set when the current text cannot be shown (binary, too large): the call replaces it whole. */
  beforeUnreadable?: string;
  /** For an edit: how many occurrences it replaces. */
  replacements?: number;
}

/**
 * A call's preview as the registry gives it: the change with secret values masked, or why the
 * call would fail as it stands.
 */
export type ToolPreview = { ok: true; change: FileChange } | { ok: false; message: string };

/** A question for the user, from the ask_human call `toolCallId`. */
export interface HumanQuestion {
  question: string;
  /** Suggested answers; the user may still answer in their own words. */
  choices?: string[];
  toolCallId: string;
}

/**
 * How the host asks the user: resolves with the answer ("" when the user declined to answer),
 * or undefined when no human is available (no terminal, input ended).
 */
export type AskHuman = (question: HumanQuestion) => Promise<{ answer: string } | undefined>;

/** A value with `<secret>name</secret>` placeholders filled in, and what was not. */
export interface SecretSubstitution<T> {
  value: T;
  /** Names filled in. */
  used: string[];
  /** Placeholders naming no secret the user has. */
  missing: string[];
  /** Secrets the user has, but not for this URL or workspace. */
  outOfScope: string[];
}

/**
 * What tools see of the user's secrets: never the list of values, only substitution into a
 * copy of their arguments right before they act, and the masker for what comes back.
 */
export interface SecretAccess {
  /** Placeholders in `value` (any JSON-like shape) filled for a request to `url`. */
  forUrl<T>(value: T, url: string): SecretSubstitution<T>;
  /**
   * Placeholders in a shell command turned into references to environment variables, whose
   * values are in `env`: a value never appears on a command line.
   */
  forCommand(command: string): SecretSubstitution<string> & {
    env: Record<string, string>;
    /** Placeholders where the shell would not expand a variable (a quoted heredoc). */
    unexpandable: string[];
  };
  /** The names of the user's secrets `value` would have filled in (tags, or a whole string naming one). */
  named(value: unknown): string[];
  /** Every secret value (and its common encodings) in `text` replaced by its placeholder. */
  redact(text: string): string;
  /** A masker for text arriving in pieces (holds back what could be the start of a value). */
  redactStream(): { push(chunk: string | Uint8Array): string; end(): string };
}

/** Which call an artifact came from. */
export interface ArtifactMeta {
  tool: string;
  toolCallId: string;
}

/** A page of an artifact's lines. */
export interface ArtifactPage {
  /** The lines of the page joined by "\n" ("" when `offset` is past the end). */
  text: string;
  totalLines: number;
}

/** What a tool's execute returns (a failure without useful output is a thrown ResonError). */
export interface ToolOutput {
  content: string;
  /** A short line kept in history in place of the full output once it has been seen. */
  longTermMemory?: string;
  /** Show the full output to the model once, then only `longTermMemory`. */
  includeOutputOnlyOnce?: boolean;
  /**
   * Said in the truncation marker: how the model can see the rest. A function gets what was
   * kept, so the hint can be exact (read_file: "offset=N").
   */
  truncationHint?: string | ((cut: TruncationInfo) => string);
  /** The tool already cut its own output (e.g. a result cap); sets `meta.truncated`. */
  truncated?: boolean;
  /**
   * The call failed but its output still matters (a command's output with a non-zero
   * exit): the result is ok:false with this error and `content` kept.
   */
  error?: ResonError;
  /**
   * This output carries content from outside the user's files although the tool is not
   * `external` (a sub-agent that read a web page): where it came from. The run becomes untrusted.
   */
  untrustedOrigin?: string;
  /**
   * Keep this output in view for the rest of the session under this key (a skill's
   * instructions, "skill:<name>"): never trimmed, and re-attached when the part of the
   * history holding it is summarised or folded away. A later output with the same key
   * replaces it.
   */
  pinAs?: string;
}

/** What central truncation kept, counted in lines and characters of the content. */
export interface TruncationInfo {
  /** Complete lines kept from the start. */
  shownLines: number;
  totalLines: number;
  shownChars: number;
  totalChars: number;
}

/** Which part of a long output survives truncation. */
export type TruncationMode = "head" | "head_and_tail";

export interface ToolDefinition<S extends TSchema = TSchema> {
  name: string;
  description: string;
  parameters: S;
  /**
   * What arguments are checked against, when not `parameters`: an MCP server's schema without
   * its regular expressions (src/mcp/schema-without-patterns.ts).
   */
  checkedParameters?: TSchema;
  /** Has no side effects: may run in parallel with other read-only calls of a step. */
  readOnly: boolean;
  /**
   * False for a tool with side effects that never changes the workspace's files (the goal
   * tree, an HTTP request): no snapshot of the workspace is taken around its calls. Default:
   * every tool that is not read-only may change files.
   */
  changesFiles?: boolean;
  /**
   * Talks to the world outside the user's files (web_fetch, the browser, an MCP server not
   * marked trusted, a plugin's tool unless it says otherwise): what it returns is untrusted
   * content, which marks the run, and what it is given may leave the machine.
   */
  external?: boolean;
  /**
   * URL patterns (e.g. "*.github.com") where this tool makes sense: it is offered to the model
   * only while the session's current URL matches one. Absent: offered everywhere.
   */
  urlPatterns?: string[];
  /** Arguments a beforeToolCall hook may change. */
  editableParams?: string[];
  /** Default "head"; "head_and_tail" for outputs whose end matters (command output). */
  truncation?: TruncationMode;
  /**
   * What the call would change, computed without changing anything: shown to the user who is
   * asked to approve it. Throws a ResonError when the call, as it stands, would fail.
   */
  preview?(args: Static<S>, ctx: PreviewContext): Promise<FileChange>;
  /**
   * Default true: an output the registry must cut is kept whole as an artifact when the run
   * can store them. False for tools whose output can be read again by range (read_file).
   */
  saveOverflowAsArtifact?: boolean;
  execute(args: Static<S>, ctx: ToolContext): Promise<ToolOutput>;
}

export interface ToolResultMeta {
  tool: string;
  durationMs: number;
  truncated: boolean;
  /** The artifact that keeps the whole output, when it was cut and saved. */
  artifactId?: string;
}

export interface ToolResult {
  ok: boolean;
  /** The tool's output (also on failure, where a tool gave one; else ""). */
  content: string;
  meta: ToolResultMeta;
  error?: SerializedError;
  longTermMemory?: string;
  includeOutputOnlyOnce?: boolean;
  /** ToolOutput.pinAs, for a successful call. */
  pinAs?: string;
  /** ToolOutput.untrustedOrigin. */
  untrustedOrigin?: string;
}

export interface ToolCallRequest {
  id: string;
  name: string;
  arguments: Record<string, unknown>;
}

/** What the provider is told about a tool. */
export interface ToolSpec {
  name: string;
  description: string;
  parameters: TSchema;
}

export interface ToolStats {
  calls: number;
  successes: number;
  failures: number;
  totalDurationMs: number;
  lastCallAt?: number;
}
