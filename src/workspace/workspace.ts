// The workspace: one root folder and every operation tools may do in it. Each path goes
// through the sandbox (sandbox.ts) at the moment of use and the operation then works on the
// descriptors the sandbox opened (fd-ops.ts); writes also answer to the workspace policy
// (protected paths, read-only agents). Errors are ResonErrors naming the workspace-relative path.
import { accessSync, closeSync, constants, realpathSync, type Stats, statSync } from "node:fs";
import { readdir } from "node:fs/promises";
import { delimiter, join, resolve } from "node:path";
import { abortError, throwIfAborted } from "../core/abort.js";
import { ResonError } from "../core/errors.js";
import {
  type CommandOptions,
  type CommandResult,
  type CommandSandbox,
  DEFAULT_KILL_GRACE_MS,
  defaultShell,
  runCommand,
} from "./command.js";
import { scrubEnvironment } from "./environment.js";
import { clearOrphanedPlaceholders } from "./exec-sandbox/placeholder-registry.js";
import { probeSandbox } from "./exec-sandbox/probe.js";
import { fdPath, makeDirectories, readRegular, replaceFile } from "./fd-ops.js";
import { fileNotFound, toFsError } from "./fs-errors.js";
import { fileFilter, globMatcher } from "./glob.js";
import { isSealed, type WorkspacePolicy, workspacePolicy } from "./policy.js";
import { holdsTarget, protectedTargets, targetCovering } from "./protected-targets.js";
import {
  checkPathString,
  type Located,
  locate,
  type ResolvedPath,
  relativeToRoot,
  resolvePath,
} from "./sandbox.js";
import {
  compileRegex,
  type SearchResult,
  type SearchScope,
  searchWithJs,
  searchWithRipgrep,
} from "./search.js";
import { decodeText, looksBinary } from "./text-file.js";
import { compareNames, DEFAULT_MAX_WALK_FILES, type WalkResult, walkFiles } from "./walk.js";
import {
  DEFAULT_MAX_READ_BYTES,
  type DirEntry,
  type GlobOptions,
  type GlobResult,
  type PathInfo,
  type ReadTextOptions,
  type SearchOptions,
  type SignalOption,
  type TextFile,
  type TextFileChannel,
  type WalkCallOptions,
  type WorkspaceOptions,
  type WriteResult,
} from "./workspace-types.js";

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
  /** Protected paths, read-only mode and command limits for this workspace. */
  readonly policy: WorkspacePolicy;
  private readonly maxReadBytes: number;
  private readonly maxWalkFiles: number;
  private readonly env: Record<string, string>;
  private readonly shell: string;
  private readonly killGraceMs: number;
  /** Whether commands must run in the OS sandbox. */
  readonly commandSandbox: "on" | "off";
  private readonly textFiles: TextFileChannel | undefined;

  private constructor(root: string, options: WorkspaceOptions) {
    this.root = root;
    this.policy = workspacePolicy(root, options.policy);
    const source = options.env ?? process.env;
    this.env = scrubEnvironment(source, options.envPassthrough);
    this.maxReadBytes = options.maxReadBytes ?? DEFAULT_MAX_READ_BYTES;
    this.maxWalkFiles = options.maxWalkFiles ?? DEFAULT_MAX_WALK_FILES;
    this.shell = options.shell ?? defaultShell();
    this.killGraceMs = options.killGraceMs ?? DEFAULT_KILL_GRACE_MS;
    this.commandSandbox = options.commandSandbox ?? "off";
    this.textFiles = options.textFiles;
    this.ripgrep = options.ripgrep === false ? undefined : (options.ripgrep ?? findOnPath("rg", source.PATH));
  }

  /** Opens a workspace at `rootDir`, which must be an existing directory. */
  static async open(rootDir: string, options: WorkspaceOptions = {}): Promise<Workspace> {
    // Synchronously, once per workspace: a trip through the thread pool costs more.
    let root: string;
    try {
      root = realpathSync.native(resolve(rootDir));
    } catch (error) {
      throw new ResonError("file_not_found", `The workspace folder ${rootDir} does not exist.`, {
        hint: "Create it, or start reson in the project folder you want to work on.",
        details: { path: rootDir, errno: (error as NodeJS.ErrnoException).code },
      });
    }
    const info = statSync(root);
    if (!info.isDirectory()) {
      throw new ResonError("not_a_directory", `The workspace ${rootDir} is a file, not a folder.`, {
        hint: "Point reson at the project folder that contains it.",
        details: { path: rootDir },
      });
    }
    // A reson killed while a command ran left that command's placeholders: clear them before
    // anything reads the folder (an empty folder where .mcp.json should be).
    await clearOrphanedPlaceholders(root);
    return new Workspace(root, options);
  }

  /** Where `path` really is; refuses paths that leave the workspace (see sandbox.ts). */
  resolve(path: string, options: SignalOption = {}): Promise<ResolvedPath> {
    return resolvePath(this.root, path, options.signal).catch((error: unknown) => {
      throw toFsError(error, String(path));
    });
  }

  async readText(path: string, options: ReadTextOptions = {}): Promise<TextFile> {
    const maxBytes = options.maxBytes ?? this.maxReadBytes;
    return this.at(path, options.signal, "read", async (target) => {
      const { handle, info } = existing(target);
      if (info.isDirectory()) throw toFsError({ code: "EISDIR" }, target.relative);
      if (!info.isFile()) {
        throw new ResonError("not_a_file", `${target.relative} is not a regular file.`, {
          details: { path: target.relative },
        });
      }
      if (info.size > maxBytes) throw tooLarge(target.relative, info.size, maxBytes);
      throwIfAborted(options.signal);
      const bytes = readRegular(handle, target.readable, info.size, maxBytes);
      if (bytes.length > maxBytes) throw tooLarge(target.relative, bytes.length, maxBytes);
      if (looksBinary(bytes)) {
        throw new ResonError("file_binary", `${target.relative} is a binary file (${bytes.length} bytes).`, {
          hint: "Only text files can be read; use execute_command (e.g. `file`, `xxd | head`) to inspect it.",
          details: { path: target.relative, bytes: bytes.length },
        });
      }
      const buffered = await this.textFiles?.read?.(target.real, options.signal);
      if (buffered === undefined)
        return { path: target.relative, text: decodeText(bytes), bytes: bytes.length };
      const size = Buffer.byteLength(buffered);
      if (size > maxBytes) throw tooLarge(target.relative, size, maxBytes);
      return { path: target.relative, text: buffered, bytes: size };
    });
  }

  /**
   * Replaces or creates a file atomically, creating missing parent folders inside the root.
   * Refused in a read-only workspace and on protected paths, both as named and where they lead.
   */
  writeText(path: string, content: string, options: SignalOption = {}): Promise<WriteResult> {
    return this.#write(path, content, options);
  }

  /** The same for bytes that are not text (a download): never through an editor's buffers. */
  writeBytes(path: string, content: Uint8Array, options: SignalOption = {}): Promise<WriteResult> {
    return this.#write(path, content, options);
  }

  async #write(path: string, content: string | Uint8Array, options: SignalOption): Promise<WriteResult> {
    if (this.policy.readOnly) throw readOnly(String(path));
    // As named, before anything is opened; then where it really leads, before anything changes.
    const named = checkPathString(this.root, path).relative;
    this.refuseProtected(named, named);
    return this.at(path, options.signal, "place", async (target) => {
      this.refuseProtected(named, relativeToRoot(this.root, target.real));
      let mode: number | undefined;
      if (!target.info && target.directory) {
        throw new ResonError(
          "not_a_file",
          `Cannot write ${JSON.stringify(path)}: a path ending in "/" names a directory, not a file.`,
          {
            hint: `Name the file without the trailing "/": ${target.relative}.`,
            details: { path: target.relative },
          },
        );
      }
      if (target.info) {
        if (target.info.isDirectory()) throw toFsError({ code: "EISDIR" }, target.relative);
        // Permission bits only: a rewritten file never keeps a setuid or setgid bit.
        mode = target.info.mode & 0o777;
      }
      throwIfAborted(options.signal);
      const dir = makeDirectories(target.dir, target.rest.slice(0, -1), target.mountId);
      try {
        if (typeof content === "string" && this.textFiles?.write)
          await this.textFiles.write(target.real, content, options.signal);
        else replaceFile(dir, target.rest.at(-1)!, content, mode);
      } finally {
        if (dir !== target.dir) closeSync(dir);
      }
      const bytes = typeof content === "string" ? Buffer.byteLength(content) : content.byteLength;
      return { path: target.relative, bytes, created: target.info === undefined };
    });
  }

  /** The entries of a directory, sorted by name. */
  async list(path = ".", options: SignalOption = {}): Promise<DirEntry[]> {
    const { relative, dirents } = await this.at(path, options.signal, "place", async (target) => {
      const { handle, info } = existing(target);
      if (!info.isDirectory()) {
        throw new ResonError("not_a_directory", `${target.relative} is a file, not a directory.`, {
          hint: "Use read_file to read it.",
          details: { path: target.relative },
        });
      }
      const dirents = await readdir(fdPath(handle), { withFileTypes: true });
      return { relative: relativeToRoot(this.root, target.real), dirents };
    });
    const entries: DirEntry[] = [];
    for (const dirent of dirents) {
      if (dirent.isSymbolicLink()) {
        const inner = relative === "." ? dirent.name : `${relative}/${dirent.name}`;
        entries.push({ name: dirent.name, kind: "symlink", linkTo: this.linkTarget(inner, options.signal) });
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
    return this.at(path, options.signal, "place", (target) => {
      const { info } = existing(target);
      return { path: target.relative, kind: kindOf(info), size: info.size, mtimeMs: info.mtimeMs };
    });
  }

  /** Files under `path` (ignore files respected, `.git` skipped), relative to the root. */
  async walk(path = ".", options: WalkCallOptions = {}): Promise<WalkResult> {
    const start = await this.start(path, options.signal);
    if (start.isFile) return { files: [start.relative], truncated: false };
    return this.guard(start.relative, options.signal, () =>
      walkFiles(this.root, start.relative, {
        maxFiles: options.maxFiles ?? this.maxWalkFiles,
        skip: (file) => isSealed(this.policy, file),
        signal: options.signal,
      }),
    );
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
      skip: (file) => isSealed(this.policy, file),
      maxMatches: options.maxMatches ?? 500,
      maxLineChars: options.maxLineChars ?? 500,
      maxFileBytes: this.maxReadBytes,
      maxWalkFiles: this.maxWalkFiles,
      readFile: (file) => this.readSearchable(file),
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
    return searchWithJs(scope, compileRegex(pattern), options.regexTimeLimitMs);
  }

  /** Runs `command` with the shell in the workspace root (see command.ts). */
  async runCommand(command: string, options: CommandOptions = {}): Promise<CommandResult> {
    const { extraEnv, ...rest } = options;
    let sandbox: CommandSandbox | undefined;
    if (this.commandSandbox === "on") {
      const status = await probeSandbox();
      if (status.level !== "enforced") {
        const problem = status.problems[0];
        throw new ResonError(
          "sandbox_unavailable",
          `No OS sandbox works on this machine${problem ? ` (${problem.what})` : ""}, so the command was not run.`,
          {
            hint: `${problem ? `${problem.fix}. ` : ""}\`reson doctor\` shows what is missing; the user can choose to run commands without the sandbox (--sandbox off).`,
          },
        );
      }
      sandbox = { policy: this.policy, status };
    }
    return runCommand({
      ...rest,
      command,
      cwd: this.root,
      env: extraEnv ? { ...this.env, ...extraEnv } : this.env,
      shell: this.shell,
      killGraceMs: this.killGraceMs,
      ...(sandbox ? { sandbox } : {}),
    });
  }

  /**
   * Places `path` with the sandbox and runs `use` on what it opened, closing every descriptor
   * after, and turning errors into ResonErrors (aborts into "aborted").
   */
  private async at<T>(
    path: string,
    signal: AbortSignal | undefined,
    intent: "read" | "place",
    use: (target: Located) => T | Promise<T>,
  ): Promise<T> {
    let target: Located;
    try {
      target = locate(this.root, path, signal, intent);
    } catch (error) {
      throw toFsError(error, String(path));
    }
    try {
      this.refuseSealed(target);
      return await this.guard(target.relative, signal, async () => use(target));
    } finally {
      target.close();
    }
  }

  /**
   * Refuses a write to `path` (root-relative) that no approval may let through: git's own
   * files (and what git's config names), reson's settings, or a folder holding one. The rest of
   * the protected list is the permission guard's to ask about.
   */
  private refuseProtected(named: string, path: string): void {
    const targets = protectedTargets(this.policy).filter((target) => target.entry.edits === "never");
    const covering = targetCovering(targets, path);
    if (!covering && (path === "." || !holdsTarget(targets, path))) return;
    const why = covering ? ` (${covering.entry.reader})` : "";
    throw new ResonError(
      "path_protected",
      named === path
        ? `${named} is protected${why}: file tools cannot change it.`
        : `${named} leads to ${path}, which is protected${why}: file tools cannot change it.`,
      {
        hint: "Only the user changes git's own files and reson's settings: ask them to make this change themselves.",
        details: { path: named, resolved: path },
      },
    );
  }

  /** Refuses any file operation on reson's own folder (see `WorkspacePolicy.sealed`), as named or where it leads. */
  private refuseSealed(target: Located): void {
    const real = relativeToRoot(this.root, target.real);
    if (!isSealed(this.policy, target.relative) && !isSealed(this.policy, real)) return;
    throw new ResonError(
      "path_protected",
      `${target.relative} is in reson's own folder ($RESON_HOME): file tools cannot read or change it.`,
      {
        hint: "reson's settings, permissions and secrets are only changed by the user, outside the agent; leave this folder alone.",
        details: { path: target.relative },
      },
    );
  }

  /** A walk or search start: an existing file or directory, by its real path relative to the root. */
  private start(
    path: string,
    signal: AbortSignal | undefined,
  ): Promise<{ relative: string; isFile: boolean }> {
    return this.at(path, signal, "place", (target) => {
      const { info } = existing(target);
      return { relative: relativeToRoot(this.root, target.real), isFile: !info.isDirectory() };
    });
  }

  /** What the symlink at `path` leads to, for listings. */
  private linkTarget(path: string, signal: AbortSignal | undefined): DirEntry["linkTo"] {
    let target: Located;
    try {
      target = locate(this.root, path, signal);
    } catch (error) {
      if (error instanceof ResonError && error.code === "path_outside_workspace") return "outside";
      return "broken";
    }
    target.close();
    return target.info === undefined ? "broken" : kindOf(target.info);
  }

  /** A file's bytes for the JS grep, or undefined when it is too large, binary, or unreadable. */
  private readSearchable(path: string): Buffer | undefined {
    let target: Located;
    try {
      target = locate(this.root, path, undefined, "read");
    } catch {
      return undefined; // unreadable files are skipped, as ripgrep does
    }
    try {
      if (!target.info?.isFile() || target.info.size > this.maxReadBytes) return undefined;
      if (isSealed(this.policy, relativeToRoot(this.root, target.real))) return undefined;
      const bytes = readRegular(target.target!, target.readable, target.info.size, this.maxReadBytes);
      return bytes.length > this.maxReadBytes || bytes.includes(0) ? undefined : bytes;
    } catch {
      return undefined;
    } finally {
      target.close();
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

/** The target of a located path that must exist, and its fstat. */
function existing(target: Located): { handle: number; info: Stats } {
  if (target.target === undefined || target.info === undefined) throw fileNotFound(target.relative);
  return { handle: target.target, info: target.info };
}

function readOnly(path: string): ResonError {
  return new ResonError(
    "workspace_read_only",
    `Cannot write ${path}: the workspace is read-only for this agent (plan/explore).`,
    {
      hint: "Describe the change instead; the user can apply it, or leave plan mode to let the agent write.",
      details: { path },
    },
  );
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
