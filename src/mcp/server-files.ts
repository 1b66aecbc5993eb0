// The workspace files a project's local MCP server runs: the script its definition names
// (`node tools/server.js`, `python server.py`, `python -m tools.server`, `./bin/serve`), what
// that script imports from the workspace (JavaScript and TypeScript as Node resolves them,
// node_modules included; Python's local modules and packages), and the files a package runner
// reads its scripts and dependencies from (package.json for npm, pyproject.toml for uv). The
// server runs outside the sandbox while a run's commands can change these files, so the user's
// approval covers them too: a changed file asks again (approval.ts). With the user's home given,
// the answer is kept with what it depended on and reused while none of that changed
// (server-files-cache.ts).
import { createHash } from "node:crypto";
import { readFile, realpath, stat } from "node:fs/promises";
import { basename, dirname, extname, isAbsolute, join, relative, resolve, sep } from "node:path";
import type { McpServerConfig } from "../config/index.js";
import { isWithin } from "../core/path-within.js";
import { reachedFiles, ScriptImportError } from "../core/script-imports.js";
import { expandText } from "./expand.js";
import { keepAnswer, keptAnswer, keptFile, ServerInputs } from "./server-files-cache.js";

export interface ServerFiles {
  /** Workspace-relative path ("/"-separated) -> hash of its bytes. */
  files: Record<string, string>;
  /** What could not be followed, if anything (then the approval covers the rest). */
  unfollowed?: string;
}

/** Files followed at most, and their bytes: past either, the rest is not covered (and said so). */
const MAX_FILES = 5000;
const MAX_BYTES = 128 * 1024 * 1024;

const SCRIPT = /\.(?:[cm]?[jt]sx?)$/;
const PYTHON = /^python(\d+(\.\d+)?)?$/;

/** What a launcher reads from the folder it runs in: its scripts, its dependencies and where they come from. */
const LAUNCHER_FILES: Record<string, readonly string[]> = {
  npm: ["package.json", ".npmrc"],
  pnpm: ["package.json", ".npmrc", "pnpm-workspace.yaml"],
  yarn: ["package.json", ".yarnrc.yml", ".yarnrc"],
  bun: ["package.json", "bunfig.toml"],
  bunx: ["package.json", "bunfig.toml"],
  uv: ["pyproject.toml", "uv.toml", "uv.lock"],
  uvx: ["uv.toml"],
  poetry: ["pyproject.toml", "poetry.lock"],
  deno: ["deno.json", "deno.jsonc"],
  make: ["Makefile", "makefile", "GNUmakefile"],
};

class Collected {
  readonly files = new Map<string, string>();
  readonly inputs = new ServerInputs();
  bytes = 0;
  unfollowed: string | undefined;

  constructor(readonly root: string) {}

  /** workspaceFile, remembered with its outcome (what the answer depends on). */
  async lookup(path: string): Promise<string | undefined> {
    const real = await workspaceFile(this.root, path);
    this.inputs.lookups.set(path, real ?? null);
    return real;
  }

  get full(): boolean {
    return this.unfollowed !== undefined;
  }

  /** Adds the file at `abs` (a real path inside the workspace); false when it is not one. */
  async add(abs: string): Promise<boolean> {
    if (this.full) return false;
    const rel = relative(this.root, abs).split(sep).join("/");
    if (this.files.has(rel)) return true;
    let bytes: Buffer;
    try {
      bytes = await readFile(abs);
    } catch {
      return false;
    }
    if (this.files.size >= MAX_FILES || this.bytes + bytes.length > MAX_BYTES) {
      this.unfollowed = `it runs more than ${MAX_FILES} files or ${MAX_BYTES >> 20} MiB from the workspace`;
      return false;
    }
    this.bytes += bytes.length;
    this.files.set(rel, createHash("sha256").update(bytes).digest("hex").slice(0, 32));
    return true;
  }
}

export interface ServerFilesOptions {
  /** $RESON_HOME: the answer is kept there and reused while nothing it depended on changed. */
  home?: string;
}

/** The real path of the file `path` if it is a regular file inside the workspace. */
async function workspaceFile(root: string, path: string): Promise<string | undefined> {
  try {
    const real = await realpath(path);
    if (!isWithin(real, root) || real === root) return undefined;
    return (await stat(real)).isFile() ? real : undefined;
  } catch {
    return undefined;
  }
}

/** Python: a module's file and the package __init__.py files importing it runs, from `base`. */
function moduleCandidates(base: string, dotted: string): string[] {
  const parts = dotted.split(".").filter((part) => part !== "");
  const found: string[] = [];
  for (let i = 1; i <= parts.length; i++) found.push(join(base, ...parts.slice(0, i), "__init__.py"));
  found.push(`${join(base, ...parts)}.py`, join(base, ...parts, "__main__.py"));
  return found;
}

const PY_IMPORT = /^\s*import\s+([\w.]+(?:\s+as\s+\w+)?(?:\s*,\s*[\w.]+(?:\s+as\s+\w+)?)*)/gm;
const PY_FROM = /^\s*from\s+(\.*)([\w.]*)\s+import\s+\(?\s*([\w\s,*]+)/gm;

/** The modules a Python file imports, as candidate files (absolute imports from `bases`). */
function pythonImports(file: string, text: string, bases: readonly string[]): string[] {
  const found: string[] = [];
  for (const match of text.matchAll(PY_IMPORT))
    for (const item of match[1]!.split(",")) {
      const name = item.trim().split(/\s+/)[0]!;
      for (const base of bases) found.push(...moduleCandidates(base, name));
    }
  for (const match of text.matchAll(PY_FROM)) {
    const dots = match[1]!.length;
    const name = match[2]!;
    const names = match[3]!
      .split(",")
      .map((item) => item.trim().split(/\s+/)[0]!)
      .filter((item) => item !== "" && item !== "*");
    let bases2 = bases;
    if (dots > 0) {
      let dir = dirname(file);
      for (let up = 1; up < dots; up++) dir = dirname(dir);
      bases2 = [dir];
    }
    for (const base of bases2) {
      if (name !== "") found.push(...moduleCandidates(base, name));
      // `from pkg import mod` may name a module of the package.
      for (const item of names) found.push(...moduleCandidates(base, name === "" ? item : `${name}.${item}`));
    }
  }
  return found;
}

/** Adds Python files and what they import from the workspace, breadth first. */
async function followPython(collected: Collected, start: readonly string[], cwd: string): Promise<void> {
  const queue = [...start];
  const seen = new Set<string>();
  while (queue.length > 0 && !collected.full) {
    const file = queue.shift()!;
    if (seen.has(file)) continue;
    seen.add(file);
    const real = await collected.lookup(file);
    if (!real || !(await collected.add(real))) continue;
    if (!real.endsWith(".py")) continue;
    const text = await readFile(real, "utf8").catch(() => "");
    for (const next of pythonImports(real, text, [dirname(real), cwd])) if (!seen.has(next)) queue.push(next);
  }
}

/** The parts of a definition that may name a file: the command when it is a path, every argument, and `--flag=value` values. */
function fileWords(command: string, args: readonly string[]): string[] {
  const words = command.includes("/") ? [command] : [];
  for (const arg of args) {
    if (arg === "" || arg === "-" || arg === "--") continue;
    const eq = arg.startsWith("-") ? arg.indexOf("=") : -1;
    if (eq > 0) words.push(arg.slice(eq + 1));
    else if (!arg.startsWith("-")) words.push(arg);
  }
  return words;
}

/**
 * The workspace files the local server `config` runs (none for a remote one). `workspace` is
 * the workspace's real path; `${VAR}` is expanded from `env` as at the server's start.
 */
export async function serverFiles(
  config: McpServerConfig,
  workspace: string,
  env: NodeJS.ProcessEnv,
  options: ServerFilesOptions = {},
): Promise<ServerFiles> {
  if (config.url || !config.command) return { files: {} };
  const missing = new Set<string>();
  const command = expandText(config.command, env, missing);
  const args = (config.args ?? []).map((arg) => expandText(arg, env, missing));
  const cwd = resolve(workspace, config.cwd === undefined ? "." : expandText(config.cwd, env, missing));
  if (options.home === undefined) return (await computeServerFiles(workspace, command, args, cwd)).answer;
  const kept = keptFile(options.home, workspace, { command, args, cwd });
  const reused = await keptAnswer<ServerFiles>(kept, (path) => workspaceFile(workspace, path));
  if (reused && typeof reused.files === "object" && reused.files !== null) return reused;
  const startedMs = Date.now();
  const { answer, inputs } = await computeServerFiles(workspace, command, args, cwd);
  await keepAnswer(kept, answer, inputs, startedMs);
  return answer;
}

async function computeServerFiles(
  workspace: string,
  command: string,
  args: readonly string[],
  cwd: string,
): Promise<{ answer: ServerFiles; inputs: ServerInputs }> {
  const collected = new Collected(workspace);
  const launcher = basename(command).replace(/\.(cmd|exe)$/i, "");

  const scripts: string[] = [];
  const python: string[] = [];
  for (const word of fileWords(command, args)) {
    const real = await collected.lookup(isAbsolute(word) ? word : resolve(cwd, word));
    if (!real) continue;
    if (SCRIPT.test(real)) scripts.push(real);
    else if (extname(real) === ".py") python.push(real);
    else await collected.add(real);
  }
  for (const name of LAUNCHER_FILES[launcher] ?? []) {
    const real = await collected.lookup(join(cwd, name));
    if (real) await collected.add(real);
  }
  if (PYTHON.test(launcher)) {
    const at = args.indexOf("-m");
    const module = at >= 0 ? args[at + 1] : undefined;
    if (module) python.push(...moduleCandidates(cwd, module));
  }
  await followPython(collected, python, cwd);

  if (scripts.length > 0) {
    let reached: Set<string> | undefined;
    try {
      reached = await reachedFiles(cwd, scripts, {
        onImport: (edge) => collected.inputs.imports.push(edge),
      });
    } catch (error) {
      if (!(error instanceof ScriptImportError)) throw error;
      collected.unfollowed ??= `${error.file ?? scripts[0]} could not be read for its imports (${error.message})`;
      // The file esbuild stopped at is not known to the stamps.
      collected.inputs.notKept = "a file could not be read for its imports";
    }
    if (reached === undefined) {
      collected.unfollowed ??= "what its scripts import was not followed";
      collected.inputs.notKept ??= "esbuild is not there to follow imports";
    }
    const ran = reached ?? new Set(scripts);
    for (const file of ran) {
      collected.inputs.reached.add(file);
      const real = await collected.lookup(file);
      if (real) await collected.add(real);
    }
    // The nearest package.json above each file says how Node reads it (module or CommonJS, a
    // package's "main" and "exports", "#" imports): a changed one changes what runs.
    const looked = new Set<string>();
    for (const file of ran)
      for (let dir = dirname(file); isWithin(dir, workspace) && !looked.has(dir); dir = dirname(dir)) {
        looked.add(dir);
        const manifest = await collected.lookup(join(dir, "package.json"));
        if (manifest) {
          await collected.add(manifest);
          break;
        }
        if (dir === workspace) break;
      }
  }
  const files = Object.fromEntries([...collected.files].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  const answer = collected.unfollowed ? { files, unfollowed: collected.unfollowed } : { files };
  return { answer, inputs: collected.inputs };
}
