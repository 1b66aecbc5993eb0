// The workspace manager (seed 004's WorkspaceManager): registered folders by name, the default
// workspace made on first use, templates copied on create, `-w` resolving a name or a path,
// and removal that deletes files only when asked. Everything it keeps goes through
// store.workspaces; it never touches SQL.
import { mkdir, readdir, realpath, rm, stat } from "node:fs/promises";
import { homedir } from "node:os";
import { join, relative, resolve } from "node:path";
import { resonHome } from "../config/index.js";
import { throwIfAborted } from "../core/abort.js";
import { ResonError } from "../core/errors.js";
import { ulid } from "../core/ids.js";
import { isWithin } from "../core/path-within.js";
import {
  type Store,
  type WorkspaceRecord,
  workspaceNameTaken,
  workspaceNotFound,
  workspacePathTaken,
} from "../store/index.js";
import { makeFolderWithin, realPathOf, WORKSPACES_DIR, workspaceRootRisk } from "../workspace/index.js";
import { assertDeletable } from "./deletion.js";
import { assertWorkspaceName, looksLikeWorkspaceId, WORKSPACE_ID_PREFIX } from "./names.js";
import { changedSettings, type SettingsChange } from "./settings.js";
import { applyTemplate } from "./templates.js";

export const DEFAULT_WORKSPACE_NAME = "default";
export const DEFAULT_TEMPLATE = "empty";

export interface WorkspaceManagerOptions {
  store: Store;
  env?: NodeJS.ProcessEnv;
  /** The user's home folder (default the OS's). */
  home?: string;
}

export interface CreateWorkspaceInput {
  name: string;
  /** Default "empty". */
  template?: string;
  /** An existing or new folder; default $RESON_HOME/workspaces/<name>. */
  path?: string;
  /** Make it the default workspace. */
  makeDefault?: boolean;
  settings?: Record<string, unknown>;
  /**
   * Folders the workspace must lie in (e.g. serve's workspace roots): compared by real path,
   * and the folder is made under the root by descriptor, never through a symlink out of it.
   */
  within?: readonly string[];
}

export interface CreatedWorkspace {
  workspace: WorkspaceRecord;
  /** Template files not copied because the folder had them already. */
  skipped: string[];
  /** Files copied from a template of the user's own ($RESON_HOME/templates): theirs, not a repository's. */
  fromUserTemplate: string[];
}

/** What `-w <value>` named. */
export interface ResolvedWorkspace {
  /** The folder to work in (a real path when it exists). */
  path: string;
  /** The registered workspace, when the folder is one. */
  workspace?: WorkspaceRecord;
  /** Something the user should know about how the value was read. */
  note?: string;
}

export interface RemoveOptions {
  /** Delete the folder and everything in it too (the caller has confirmed). */
  deleteFiles?: boolean;
}

/** The real path of the root in `roots` that holds `real` (a real path), if one does. */
export function rootHolding(real: string, roots: readonly string[]): string | undefined {
  return roots.map((root) => realPathOf(root)).find((root) => isWithin(real, root));
}

function outsideRoots(target: string, roots: readonly string[]): ResonError {
  return new ResonError("forbidden", `${target} is not under a workspace root (${roots.join(", ")}).`, {
    hint: "Give a folder under one of the roots, by a path that does not leave it through a symbolic link.",
    details: { path: target },
  });
}

async function makeFolder(path: string): Promise<string> {
  await mkdir(path, { recursive: true });
  return realpath(path);
}

/** Makes `real` under `root` by descriptor; a way out found only now (a link swapped in) is refused. */
function madeUnder(root: string, target: string, real: string): string {
  try {
    return makeFolderWithin(root, relative(root, real) || ".");
  } catch (error) {
    throw wayOutRefused(error, `${target} leads out of the workspace root ${root}`);
  }
}

/** A sandbox refusal to leave a folder, as the refusal of the request (403); other errors as they are. */
function wayOutRefused(error: unknown, what: string): unknown {
  if (!(error instanceof ResonError) || error.code !== "path_outside_workspace") return error;
  return new ResonError("forbidden", `${what}: ${error.message}`, {
    hint: "Nothing was made outside. Remove the symbolic link, or give a folder that does not lead out through one.",
    cause: error,
  });
}

async function isDirectory(path: string): Promise<boolean> {
  return stat(path).then(
    (info) => info.isDirectory(),
    () => false,
  );
}

export class WorkspaceManager {
  readonly #store: Store;
  readonly #resonHome: string;
  readonly #home: string;

  constructor(options: WorkspaceManagerOptions) {
    this.#store = options.store;
    this.#resonHome = resonHome(options.env);
    this.#home = options.home ?? homedir();
  }

  /** Where workspaces made without --path go: $RESON_HOME/workspaces. */
  get workspacesDir(): string {
    return join(this.#resonHome, WORKSPACES_DIR);
  }

  list(): Promise<WorkspaceRecord[]> {
    return this.#store.workspaces.list();
  }

  /** A workspace by id (or unique id prefix of at least 6 characters after ws_) or name. */
  async get(ref: string): Promise<WorkspaceRecord> {
    const value = ref.trim();
    const byName = await this.#store.workspaces.byName(value);
    if (byName) return byName;
    if (looksLikeWorkspaceId(value)) {
      const exact = await this.#store.workspaces.get(value);
      if (exact) return exact;
      const upper = `${WORKSPACE_ID_PREFIX}${value.slice(WORKSPACE_ID_PREFIX.length).toUpperCase()}`;
      const matches = (await this.list()).filter((w) => w.id.startsWith(upper));
      if (matches.length === 1 && upper.length >= WORKSPACE_ID_PREFIX.length + 6) return matches[0]!;
      if (matches.length > 1) {
        throw new ResonError("ambiguous_id", `${value} names ${matches.length} workspaces.`, {
          hint: `Give more of the id, or the name: ${matches.map((w) => w.name).join(", ")}.`,
        });
      }
    }
    throw workspaceNotFound(value);
  }

  /**
   * Registers a workspace: a new folder under $RESON_HOME/workspaces (or at `path`), with the
   * template's files copied in. A folder that exists is registered as it is, the template
   * adding only files it does not have.
   */
  async create(input: CreateWorkspaceInput, signal?: AbortSignal): Promise<CreatedWorkspace> {
    throwIfAborted(signal);
    const name = assertWorkspaceName(input.name);
    const template = input.template ?? DEFAULT_TEMPLATE;
    const existingName = await this.#store.workspaces.byName(name);
    if (existingName) throw workspaceNameTaken(name, existingName);
    const target = input.path ? resolve(input.path) : join(this.workspacesDir, name);
    const real = realPathOf(target);
    const root = input.within ? rootHolding(real, input.within) : undefined;
    if (input.within && root === undefined) throw outsideRoots(target, input.within);
    this.#assertMayRegister(real, input.path !== undefined);
    const existed = await isDirectory(real);
    if (!existed && (await stat(real).catch(() => undefined))) {
      throw new ResonError("workspace_invalid", `${target} exists and is not a folder.`, {
        hint: "Give --path a folder, or a path where one can be made.",
      });
    }
    if (existed && !input.path && (await readdir(real)).length > 0) {
      throw new ResonError("workspace_exists", `The folder ${real} already exists and is not empty.`, {
        hint: `Register it as it is with --path ${real}, or choose another name.`,
      });
    }
    const registered = await this.#store.workspaces.byPath(real);
    if (registered) throw workspacePathTaken(real, registered);
    const path = root === undefined ? await makeFolder(real) : madeUnder(root, target, real);
    if (path !== real) {
      // The walk found another folder than the check did (a link changed meanwhile): check again.
      this.#assertMayRegister(path, input.path !== undefined);
      const taken = await this.#store.workspaces.byPath(path);
      if (taken) throw workspacePathTaken(path, taken);
    }
    let skipped: string[] = [];
    let fromUserTemplate: string[] = [];
    try {
      const applied = await applyTemplate(template, this.#resonHome, path, signal);
      skipped = applied.skipped;
      if (applied.source === "user") fromUserTemplate = applied.copied;
      const now = Date.now();
      const workspace = await this.#store.workspaces.create({
        id: `${WORKSPACE_ID_PREFIX}${ulid(now)}`,
        name,
        path,
        template,
        settings: input.settings ?? {},
        createdByReson: !existed,
        isDefault: input.makeDefault === true,
        createdAt: now,
        lastUsedAt: null,
      });
      return { workspace, skipped, fromUserTemplate };
    } catch (error) {
      // A folder made for nothing goes again; one that was there stays as it was found (but for
      // template files, which were only added where missing).
      if (!existed) await rm(path, { recursive: true, force: true });
      throw wayOutRefused(error, `The template ${template} leads out of ${path} through a symbolic link`);
    }
  }

  /**
   * The default workspace, made on first use ($RESON_HOME/workspaces/default, from the empty
   * template): where reson works when started outside any project.
   */
  async ensureDefault(signal?: AbortSignal): Promise<{ workspace: WorkspaceRecord; created: boolean }> {
    const current = await this.#store.workspaces.getDefault();
    if (current && (await isDirectory(current.path))) return { workspace: current, created: false };
    if (current) {
      // Its folder went away (deleted by hand): make it again, empty.
      await mkdir(current.path, { recursive: true });
      return { workspace: current, created: true };
    }
    const named = await this.#store.workspaces.byName(DEFAULT_WORKSPACE_NAME);
    if (named) {
      await mkdir(named.path, { recursive: true });
      return { workspace: await this.#store.workspaces.setDefault(named.id), created: false };
    }
    const path = join(this.workspacesDir, DEFAULT_WORKSPACE_NAME);
    const registered = await this.#store.workspaces.byPath(realPathOf(path));
    if (registered)
      return { workspace: await this.#store.workspaces.setDefault(registered.id), created: false };
    const { workspace } = await this.create(
      { name: DEFAULT_WORKSPACE_NAME, makeDefault: true, ...((await isDirectory(path)) ? { path } : {}) },
      signal,
    );
    return { workspace, created: true };
  }

  /**
   * What `-w <value>` means: a registered workspace's name or id gives its folder; anything
   * else is a path, as it always was. A value that is both a registered name and an existing
   * folder (relative to `cwd`) is the folder: a path keeps meaning what it meant, and the note
   * says how to get the workspace instead.
   */
  async resolve(value: string, cwd: string = process.cwd()): Promise<ResolvedWorkspace> {
    const asPath = resolve(cwd, value);
    const folder = await isDirectory(asPath);
    const byRef = await this.get(value).catch((error: unknown) => {
      if (error instanceof ResonError && error.code === "not_found") return undefined;
      throw error;
    });
    if (folder) {
      const real = await realpath(asPath);
      const workspace = await this.#store.workspaces.byPath(real);
      const note =
        byRef && byRef.path !== real
          ? `${value} is a folder here and also the name of workspace ${byRef.name} (${byRef.path}); working in the folder. For the workspace, give its path or id (${byRef.id}).`
          : undefined;
      return { path: real, ...(workspace ? { workspace } : {}), ...(note ? { note } : {}) };
    }
    if (byRef) return { path: byRef.path, workspace: byRef };
    return { path: asPath };
  }

  /** The registered workspace whose folder is `path` (a real path), if any. */
  byPath(path: string): Promise<WorkspaceRecord | undefined> {
    return this.#store.workspaces.byPath(path);
  }

  async setDefault(ref: string): Promise<WorkspaceRecord> {
    return this.#store.workspaces.setDefault((await this.get(ref)).id);
  }

  async rename(ref: string, newName: string): Promise<WorkspaceRecord> {
    const name = assertWorkspaceName(newName);
    return this.#store.workspaces.rename((await this.get(ref)).id, name);
  }

  /** Changes its settings (config values for runs in it), checked against the config schema. */
  async changeSettings(ref: string, change: SettingsChange): Promise<WorkspaceRecord> {
    const workspace = await this.get(ref);
    return this.#store.workspaces.setSettings(
      workspace.id,
      changedSettings(workspace.settings, change, workspace.name) as Record<string, unknown>,
    );
  }

  /** Records that a run used the workspace now. */
  touch(workspace: WorkspaceRecord): Promise<void> {
    return this.#store.workspaces.touch(workspace.id);
  }

  /**
   * Unregisters the workspace; with deleteFiles, deletes its folder as well, unless the folder
   * is one that holds more than a workspace (see deletion.ts).
   */
  async remove(
    ref: string,
    options: RemoveOptions = {},
    signal?: AbortSignal,
  ): Promise<{ workspace: WorkspaceRecord; deleted: boolean }> {
    const workspace = await this.get(ref);
    if (options.deleteFiles) assertDeletable(workspace, { home: this.#home, resonHome: this.#resonHome });
    throwIfAborted(signal);
    await this.#store.workspaces.remove(workspace.id);
    if (!options.deleteFiles) return { workspace, deleted: false };
    await rm(workspace.path, { recursive: true, force: true });
    return { workspace, deleted: true };
  }

  /** A folder reson would not work in is not registered either. */
  #assertMayRegister(real: string, given: boolean): void {
    const risk = workspaceRootRisk(real, { home: this.#home, resonHome: this.#resonHome });
    if (risk.kind === "none") return;
    throw new ResonError(
      "workspace_refused",
      `reson will not register ${real} as a workspace: ${risk.reason}.`,
      {
        hint: given
          ? "Give --path a project folder (or a new folder to make), not a folder that holds more than one."
          : "Set RESON_HOME to a folder of your own.",
        details: { path: real },
      },
    );
  }
}
