// The workspace: one root folder and every operation tools may do in it. Each path goes
// through the sandbox (sandbox.ts) at the moment of use; errors come out as ResonErrors
// that name the workspace-relative path.
import { accessSync, closeSync, constants, fstatSync, openSync, readSync } from "node:fs";
import { mkdir, readdir, realpath, stat } from "node:fs/promises";
import { delimiter, dirname, join, resolve } from "node:path";
import { abortError, throwIfAborted } from "../core/abort.js";
import { writeFileAtomic } from "../core/atomic-write.js";
import { ResonError } from "../core/errors.js";
import {
  type CommandOptions,
  type CommandResult,
  DEFAULT_KILL_GRACE_MS,
  defaultShell,
  runCommand,
} from "./command.js";
import { scrubEnvironment } from "./environment.js";
import { fileNotFound, toFsError } from "./fs-errors.js";
import { fileFilter, globMatcher } from "./glob.js";
import { type ResolvedPath, relativeToRoot, resolvePath } from "./sandbox.js";
import {
  compileRegex,
  type SearchEngine,
  type SearchResult,
  type SearchScope,
  searchWithJs,
  searchWithRipgrep,
} from "./search.js";
import { decodeText, looksBinary } from "./text-file.js";
import { compareNames, DEFAULT_MAX_WALK_FILES, type WalkResult, walkFiles } from "./walk.js";

export const DEFAULT_MAX_READ_BYTES = 10 * 1024 * 1024;

/**
 * Reads a file to its end, or to one byte past `maxBytes` (so the caller can tell it is too
 * large). `expected` is the size fstat gave; a file that grows meanwhile is still read whole.
 */
function readUpTo(fd: number, expected: number, maxBytes: number): Buffer {
  let buffer = Buffer.allocUnsafe(Math.min(expected, maxBytes) + 1);
  let length = 0;
  for (;;) {
    if (length === buffer.length) {
      if (length > maxBytes) break;
      const grown = Buffer.allocUnsafe(Math.min(buffer.length * 2, maxBytes + 1));
      buffer.copy(grown, 0, 0, length);
      buffer = grown;
    }
    const read = readSync(fd, buffer, length, buffer.length - length, null);
    if (read === 0) break;
    length += read;
  }
  return buffer.subarray(0, length);
}

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
}

function kindOf(info: { isFile(): boolean; isDirectory(): boolean }): "file" | "directory" | "other" {
  if (info.isFile()) return "file";
  return info.isDirectory() ? "directory" : "other";
}

function findOnPath(name: string, pathVariable: string | undefined): string | undefined {
  for (const dir of (pathVariable ?? "").split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not in this directory
    }
  }
  return undefined;
}

export class Workspace {
  /** The real absolute path of the workspace folder. */
  readonly root: string;
  /** The ripgrep binary `search` uses, if any. */
  readonly ripgrep: string | undefined;
  private readonly maxReadBytes: number;
  private readonly maxWalkFiles: number;
  private readonly env: Record<string, string>;
  private readonly shell: string;
  private readonly killGraceMs: number;

  private constructor(root: string, options: WorkspaceOptions) {
    this.root = root;
    const source = options.env ?? process.env;
    this.env = scrubEnvironment(source, options.envPassthrough);
    this.maxReadBytes = options.maxReadBytes ?? DEFAULT_MAX_READ_BYTES;
    this.maxWalkFiles = options.maxWalkFiles ?? DEFAULT_MAX_WALK_FILES;
    this.shell = options.shell ?? defaultShell();
    this.killGraceMs = options.killGraceMs ?? DEFAULT_KILL_GRACE_MS;
    this.ripgrep = options.ripgrep === false ? undefined : (options.ripgrep ?? findOnPath("rg", source.PATH));
  }

  /** Opens a workspace at `rootDir`, which must be an existing directory. */
  static async open(rootDir: string, options: WorkspaceOptions = {}): Promise<Workspace> {
    const root = await realpath(resolve(rootDir)).catch((error: NodeJS.ErrnoException) => {
      throw new ResonError("file_not_found", `The workspace folder ${rootDir} does not exist.`, {
        hint: "Create it, or start reson in the project folder you want to work on.",
        details: { path: rootDir, errno: error.code },
      });
    });
    const info = await stat(root);
    if (!info.isDirectory()) {
      throw new ResonError("not_a_directory", `The workspace ${rootDir} is a file, not a folder.`, {
        hint: "Point reson at the project folder that contains it.",
        details: { path: rootDir },
      });
    }
    return new Workspace(root, options);
  }

  /** Where `path` really is; refuses paths that leave the workspace (see sandbox.ts). */
  resolve(path: string, options: SignalOption = {}): Promise<ResolvedPath> {
    return resolvePath(this.root, path, options.signal).catch((error: unknown) => {
      throw toFsError(error, String(path));
    });
  }

  async readText(path: string, options: ReadTextOptions = {}): Promise<TextFile> {
    const target = await this.existing(path, options.signal);
    const maxBytes = options.maxBytes ?? this.maxReadBytes;
    return this.guard(target.relative, options.signal, async () => {
      throwIfAborted(options.signal);
      // Synchronous on purpose: one regular file of at most maxBytes, where four thread-pool
      // round trips (open, stat, read, close) cost more than the work. O_NOFOLLOW: a symlink
      // swapped in after the check is refused, not followed; O_NONBLOCK: a FIFO cannot hang us.
      const fd = openSync(target.real, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
      try {
        const info = fstatSync(fd);
        if (info.isDirectory()) throw toFsError({ code: "EISDIR" }, target.relative);
        if (!info.isFile()) {
          throw new ResonError("not_a_file", `${target.relative} is not a regular file.`, {
            details: { path: target.relative },
          });
        }
        if (info.size > maxBytes) throw tooLarge(target.relative, info.size, maxBytes);
        const bytes = readUpTo(fd, info.size, maxBytes);
        if (bytes.length > maxBytes) throw tooLarge(target.relative, bytes.length, maxBytes);
        if (looksBinary(bytes)) {
          throw new ResonError(
            "file_binary",
            `${target.relative} is a binary file (${bytes.length} bytes).`,
            {
              hint: "Only text files can be read; use execute_command (e.g. `file`, `xxd | head`) to inspect it.",
              details: { path: target.relative, bytes: bytes.length },
            },
          );
        }
        return { path: target.relative, text: decodeText(bytes), bytes: bytes.length };
      } finally {
        closeSync(fd);
      }
    });
  }

  /** Replaces or creates a file atomically, creating missing parent folders inside the root. */
  async writeText(path: string, content: string, options: SignalOption = {}): Promise<WriteResult> {
    const target = await this.resolve(path, options);
    return this.guard(target.relative, options.signal, async () => {
      let mode: number | undefined;
      if (target.exists) {
        const info = await stat(target.real);
        if (info.isDirectory()) throw toFsError({ code: "EISDIR" }, target.relative);
        mode = info.mode & 0o7777;
      } else {
        await mkdir(dirname(target.real), { recursive: true });
      }
      throwIfAborted(options.signal);
      await writeFileAtomic(target.real, content, mode === undefined ? {} : { mode });
      return { path: target.relative, bytes: Buffer.byteLength(content), created: !target.exists };
    });
  }

  /** The entries of a directory, sorted by name. */
  async list(path = ".", options: SignalOption = {}): Promise<DirEntry[]> {
    const target = await this.existing(path, options.signal);
    const dirents = await this.guard(target.relative, options.signal, async () => {
      const info = await stat(target.real);
      if (!info.isDirectory()) {
        throw new ResonError("not_a_directory", `${target.relative} is a file, not a directory.`, {
          hint: "Use read_file to read it.",
          details: { path: target.relative },
        });
      }
      return readdir(target.real, { withFileTypes: true });
    });
    const entries: DirEntry[] = [];
    for (const dirent of dirents) {
      if (dirent.isSymbolicLink()) {
        const inner = target.relative === "." ? dirent.name : `${target.relative}/${dirent.name}`;
        entries.push({
          name: dirent.name,
          kind: "symlink",
          linkTo: await this.linkTarget(inner, options.signal),
        });
        continue;
      }
      entries.push({
        name: dirent.name,
        kind: dirent.isFile() || dirent.isDirectory() ? kindOf(dirent) : "other",
      });
    }
    return entries.sort((a, b) => compareNames(a.name, b.name));
  }

  async stat(path: string, options: SignalOption = {}): Promise<PathInfo> {
    const target = await this.existing(path, options.signal);
    return this.guard(target.relative, options.signal, async () => {
      const info = await stat(target.real);
      return { path: target.relative, kind: kindOf(info), size: info.size, mtimeMs: info.mtimeMs };
    });
  }

  /** Files under `path` (ignore files respected, `.git` skipped), relative to the root. */
  async walk(path = ".", options: WalkCallOptions = {}): Promise<WalkResult> {
    const start = await this.start(path, options.signal);
    if (start.isFile) return { files: [start.relative], truncated: false };
    return walkFiles(this.root, start.relative, {
      maxFiles: options.maxFiles ?? this.maxWalkFiles,
      signal: options.signal,
    });
  }

  /** Files under `options.path` whose path relative to it matches `pattern`, sorted by path. */
  async glob(pattern: string, options: GlobOptions = {}): Promise<GlobResult> {
    const matches = globMatcher(pattern, this.root);
    const start = await this.start(options.path ?? ".", options.signal);
    const walked = await this.walk(start.relative, { signal: options.signal });
    const prefix = start.relative === "." ? "" : `${start.relative}/`;
    const paths = walked.files.filter((file) =>
      matches(start.isFile ? file.slice(file.lastIndexOf("/") + 1) : file.slice(prefix.length)),
    );
    return { paths: paths.sort(compareNames), truncated: walked.truncated };
  }

  /** Lines matching a regular expression, by ripgrep when present, else by a JS scan. */
  async search(pattern: string, options: SearchOptions = {}): Promise<SearchResult> {
    const filter = options.glob === undefined ? undefined : fileFilter(options.glob, this.root);
    const start = await this.start(options.path ?? ".", options.signal);
    const scope: SearchScope = {
      root: this.root,
      start: start.relative,
      startIsFile: start.isFile,
      filter,
      maxMatches: options.maxMatches ?? 500,
      maxLineChars: options.maxLineChars ?? 500,
      maxFileBytes: this.maxReadBytes,
      maxWalkFiles: this.maxWalkFiles,
      signal: options.signal,
    };
    const engine = options.engine ?? "auto";
    if (engine === "ripgrep" && !this.ripgrep) {
      throw new ResonError("tool_failed", "ripgrep (rg) is not installed.", {
        hint: "Install ripgrep, or search with the built-in engine.",
      });
    }
    if (engine !== "js" && this.ripgrep) {
      const found = await searchWithRipgrep(scope, this.ripgrep, pattern, this.env);
      if (found !== "unsupported") return found;
    }
    return searchWithJs(scope, compileRegex(pattern));
  }

  /** Runs `command` with the shell in the workspace root (see command.ts). */
  runCommand(command: string, options: CommandOptions = {}): Promise<CommandResult> {
    return runCommand({
      ...options,
      command,
      cwd: this.root,
      env: this.env,
      shell: this.shell,
      killGraceMs: this.killGraceMs,
    });
  }

  private async existing(path: string, signal: AbortSignal | undefined): Promise<ResolvedPath> {
    const target = await this.resolve(path, { signal });
    if (!target.exists) throw fileNotFound(target.relative);
    return target;
  }

  /** A walk or search start: an existing file or directory, by its real path relative to the root. */
  private async start(
    path: string,
    signal: AbortSignal | undefined,
  ): Promise<{ relative: string; isFile: boolean }> {
    const target = await this.existing(path, signal);
    const info = await this.guard(target.relative, signal, () => stat(target.real));
    return { relative: relativeToRoot(this.root, target.real), isFile: !info.isDirectory() };
  }

  private async linkTarget(path: string, signal: AbortSignal | undefined): Promise<DirEntry["linkTo"]> {
    try {
      const target = await resolvePath(this.root, path, signal);
      if (!target.exists) return "broken";
      return kindOf(await stat(target.real));
    } catch (error) {
      if (error instanceof ResonError && error.code === "path_outside_workspace") return "outside";
      return "broken";
    }
  }

  /** Runs a file operation, turning its errors into ResonErrors (and aborts into "aborted"). */
  private async guard<T>(
    path: string,
    signal: AbortSignal | undefined,
    operation: () => Promise<T>,
  ): Promise<T> {
    try {
      return await operation();
    } catch (error) {
      if (signal?.aborted) throw abortError(signal);
      throw toFsError(error, path);
    }
  }
}

function tooLarge(path: string, bytes: number, maxBytes: number): ResonError {
  return new ResonError(
    "file_too_large",
    `${path} is ${bytes} bytes, more than the ${maxBytes} bytes reads allow.`,
    {
      hint: "Search it with grep, or look at parts with execute_command (head, tail, sed -n).",
      details: { path, bytes, maxBytes },
    },
  );
}
