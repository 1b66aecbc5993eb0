// What the workspace's operations take and give (workspace.ts): options, results, entries.
import type { PolicyOptions } from "./policy.js";
import type { SearchEngine } from "./search.js";

export const DEFAULT_MAX_READ_BYTES = 10 * 1024 * 1024;

export interface WorkspaceOptions {
  /** Largest file `readText` and the JS grep read, in bytes; default 10 MiB. */
  maxReadBytes?: number;
  /** Files a walk (glob, JS grep) returns at most; default 20,000. */
  maxWalkFiles?: number;
  /** The environment commands take their allow-listed variables from; default process.env. */
  env?: Readonly<Record<string, string | undefined>>;
  /** Variable names passed to commands beyond the allow-list (secret-looking names never are). */
  envPassthrough?: readonly string[];
  /** Shell for commands; default bash if present, else /bin/sh. */
  shell?: string;
  /** Between SIGTERM and SIGKILL when a command is stopped; default 2 s. */
  killGraceMs?: number;
  /** ripgrep binary for `search`; false never uses it; default `rg` found on PATH. */
  ripgrep?: string | false;
  /** What file tools (and commands) may touch; default `workspacePolicy(root)`. */
  policy?: PolicyOptions;
  /**
   * "on": commands run in the OS sandbox (bubblewrap) under the policy, and are refused when
   * no sandbox works here; "off" (default for a bare Workspace; agents default to "on"):
   * commands run as plain child processes.
   */
  commandSandbox?: "on" | "off";
  /**
   * Where file text is read from and written to once every check of the workspace has passed
   * (an editor's buffers, over the Agent Client Protocol); default the files on disk.
   */
  textFiles?: TextFileChannel;
}

/**
 * An editor's view of the workspace's files: reads see its unsaved changes, writes go through
 * it (into its undo history). Paths are absolute real paths the workspace already checked.
 */
export interface TextFileChannel {
  /** The file's text as the editor has it; undefined: as it is on disk. Absent: reads from disk. */
  read?(path: string, signal?: AbortSignal): Promise<string | undefined>;
  /** Replaces the file's whole text (its parent folders exist). Absent: writes to disk. */
  write?(path: string, content: string, signal?: AbortSignal): Promise<void>;
}

export interface SignalOption {
  signal?: AbortSignal;
}

export interface ReadTextOptions extends SignalOption {
  /** Refuse files larger than this; default the workspace's maxReadBytes. */
  maxBytes?: number;
}

export interface TextFile {
  /** Workspace-relative path as named. */
  path: string;
  /** The decoded text; a UTF-8 byte-order mark is kept. */
  text: string;
  bytes: number;
}

export interface WriteResult {
  path: string;
  bytes: number;
  /** True when the file did not exist before. */
  created: boolean;
}

export type EntryKind = "file" | "directory" | "symlink" | "other";

export interface DirEntry {
  name: string;
  kind: EntryKind;
  /** For a symlink: what it leads to, or why it can't be used. */
  linkTo?: "file" | "directory" | "other" | "outside" | "broken";
}

export interface PathInfo {
  path: string;
  kind: "file" | "directory" | "other";
  size: number;
  mtimeMs: number;
}

export interface WalkCallOptions extends SignalOption {
  maxFiles?: number;
}

export interface GlobOptions extends SignalOption {
  /** Directory to search, relative to the root; default the root. */
  path?: string;
}

export interface GlobResult {
  /** Matching files relative to the root, sorted by path. */
  paths: string[];
  /** The walk stopped at its file cap. */
  truncated: boolean;
}

export interface SearchOptions extends SignalOption {
  /** File or directory to search; default the root. */
  path?: string;
  /** ripgrep --glob filter (gitignore syntax, relative to the root; "!" excludes). */
  glob?: string;
  /** Default 500. */
  maxMatches?: number;
  /** Matching lines are cut to this many characters; default 500. */
  maxLineChars?: number;
  /** "auto" (default) uses ripgrep when present; "js" forces the JS scan. */
  engine?: "auto" | SearchEngine;
  /** How long the JS scan may test one batch of files before it gives up (ms); default 10 s. */
  regexTimeLimitMs?: number;
}
