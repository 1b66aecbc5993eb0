// Adding, removing, enabling and trusting plugins at a scope. A folder is registered where it
// lies (never moved, never deleted); a tarball or npm spec is installed into the scope's npm
// prefix. Trusting a plugin (a project's, or a user's folder outside reson's home) copies what
// it runs into reson's home (plugin-code.ts).
// Every change re-reads the registry under the scope's lock and writes it atomically, so two
// `reson plugin add` at once both keep their plugin.
import { realpath } from "node:fs/promises";
import { join, relative } from "node:path";
import { ResonError } from "../core/errors.js";
import { withLock } from "./install-lock.js";
import { findNpm, installedPackageName, type NpmCommand, npmInstall, npmUninstall } from "./install-npm.js";
import { type PluginSpec, parsePluginSpec } from "./install-spec.js";
import { type PluginManifest, readPluginManifest } from "./manifest.js";
import { copyPluginCode, type PluginCode, prunePluginCode } from "./plugin-code.js";
import {
  type PluginRecord,
  readRegistry,
  registryPath,
  userPluginsDir,
  writeRegistry,
} from "./registry-file.js";
import { forgetPluginTrust, needsTrust, pluginCodeInUse, trustKey, trustPlugin } from "./trust.js";
import type { PluginScope } from "./types.js";

export interface PluginPlaces {
  home: string;
  /** The workspace's real path. */
  workspace: string;
}

export interface PluginChangeOptions extends PluginPlaces {
  scope: PluginScope;
  signal: AbortSignal;
  /** The npm to install with (default: the user's, see findNpm). */
  npm?: NpmCommand;
}

export interface AddPluginOptions extends PluginChangeOptions {
  /** A folder, a tarball, or an npm spec. */
  spec: string;
  /** Where relative paths in `spec` start (default: the current directory). */
  cwd?: string;
  /**
   * Trust a project plugin for this workspace once added (default true: the user who adds it
   * vouches). A user's folder outside $RESON_HOME is always trusted as added: it is their own act.
   */
  trust?: boolean;
  /** Keep the enabled flag of the record it replaces (an update), instead of enabling it. */
  keepEnabled?: boolean;
  /** Install the newest version of a spec that names no version (an update). */
  newest?: boolean;
  now?: Date;
}

export interface AddedPlugin {
  record: PluginRecord;
  manifest: PluginManifest;
  /** The record it replaced at this scope (an update), if any. */
  previous?: PluginRecord;
  /** The package hash the plugin was trusted with (a project's, or a user's folder outside $RESON_HOME). */
  trustedHash?: string;
  /** Things that went wrong after the change was made (an old package npm could not remove). */
  warnings: string[];
}

/** The npm prefix a scope installs packages into. */
export function pluginPrefix(scope: PluginScope, places: PluginPlaces): string {
  return scope === "user" ? userPluginsDir(places.home) : join(places.workspace, ".reson", "plugins");
}

function registryOf(scope: PluginScope, places: PluginPlaces) {
  const file = registryPath(scope, places);
  const base = scope === "project" ? places.workspace : undefined;
  return {
    file,
    read: async () => (await readRegistry(file, base)).records,
    write: (records: PluginRecord[]) => writeRegistry(file, records, base ? { relativeTo: base } : {}),
    /** Fails before taking the lock (which makes the scope's folder) when there is no such plugin. */
    existing: async (name: string) => {
      if (!(await readRegistry(file, base)).records.some((r) => r.name === name))
        throw notFound(name, scope, file);
    },
    locked: <T>(work: () => Promise<T>, signal: AbortSignal) => withLock(`${file}.lock`, work, { signal }),
  };
}

/** Trust is one file for all workspaces (with the copies it names): its changes are serialised. */
function trustLocked<T>(places: PluginPlaces, work: () => Promise<T>, signal: AbortSignal): Promise<T> {
  return withLock(join(places.home, "plugin-trust.json.lock"), work, { signal });
}

/**
 * Trusts a plugin as it is now: copies what it runs (its files and what its imports reach) into
 * $RESON_HOME/plugin-code, trusts that copy (a project's for its workspace, a user's for all),
 * and removes copies no trust names. With `expected` (the hash the user was shown), a plugin that
 * changed since is not trusted.
 */
export function trustPluginCode(
  places: PluginPlaces & {
    scope: PluginScope;
    name: string;
    root: string;
    signal: AbortSignal;
    expected?: string;
  },
): Promise<PluginCode> {
  return trustLocked(
    places,
    async () => {
      const code = await copyPluginCode(places.home, places.root);
      if (places.expected !== undefined && code.hash !== places.expected) {
        await prunePluginCode(places.home, await pluginCodeInUse(places.home));
        throw new ResonError(
          "plugin_invalid",
          `The plugin "${places.name}" changed while you were asked (package hash ${code.hash}, not ${places.expected}); it is not trusted.`,
          { hint: `Look at it again, then \`reson plugin trust ${places.name}\`.` },
        );
      }
      await trustPlugin(places.home, trustKey(places.scope, places.workspace), places.name, {
        hash: code.hash,
        code: code.key,
      });
      await prunePluginCode(places.home, await pluginCodeInUse(places.home));
      return code;
    },
    places.signal,
  );
}

function sourceOf(spec: PluginSpec, scope: PluginScope, places: PluginPlaces): string {
  if (spec.kind === "npm") return `npm:${spec.spec}`;
  if (spec.kind === "tarball") return `npm:${spec.path}`;
  // A project's registry file may be committed: a folder inside the workspace is named relative to it.
  const rel = relative(places.workspace, spec.path);
  const inside = scope === "project" && !rel.startsWith("..") && !rel.startsWith("/");
  return `path:${inside ? rel || "." : spec.path}`;
}

type Registry = ReturnType<typeof registryOf>;

/**
 * The plugin a package npm just installed holds. A package that is none is uninstalled again,
 * and a record whose folder it had replaced (an update to a broken version) goes with it.
 */
async function installedManifest(
  npm: NpmCommand,
  prefix: string,
  root: string,
  registry: Registry,
  signal: AbortSignal,
): Promise<PluginManifest> {
  try {
    return await readPluginManifest(root);
  } catch (error) {
    if (!(error instanceof ResonError && error.code === "plugin_invalid")) throw error;
    const realRoot = await realpath(root).catch(() => root);
    const name = await installedPackageName(prefix, realRoot);
    if (name) await npmUninstall(npm, prefix, name, signal).catch(() => {});
    const records = await registry.read();
    const lost = records.filter((r) => r.root === realRoot);
    if (lost.length > 0) await registry.write(records.filter((r) => r.root !== realRoot));
    const replaced = lost.map((r) => `"${r.name}" (from ${r.source})`).join(", ");
    throw new ResonError(
      "plugin_invalid",
      `${error.message} It was not added, and npm removed it again${lost.length > 0 ? `; it had replaced the plugin ${replaced}, which is removed too` : ""}.`,
      {
        hint: "A reson plugin package has a plugin.json at its root (list it in package.json `files`); see README, Plugins.",
      },
    );
  }
}

function npmOf(npm: NpmCommand | undefined): NpmCommand {
  if (!npm) throw new ResonError("internal_error", "npm was not looked up for a package spec.");
  return npm;
}

export async function addPlugin(options: AddPluginOptions): Promise<AddedPlugin> {
  const spec = await parsePluginSpec(options.spec, options.cwd ?? process.cwd());
  const registry = registryOf(options.scope, options);
  const prefix = pluginPrefix(options.scope, options);
  const npm = spec.kind === "folder" ? undefined : (options.npm ?? (await findNpm()));
  const added = await registry.locked(async () => {
    const manifest =
      spec.kind === "folder"
        ? await readPluginManifest(spec.path)
        : await installedManifest(
            npmOf(npm),
            prefix,
            await npmInstall(npmOf(npm), prefix, spec, options.signal, { newest: options.newest === true }),
            registry,
            options.signal,
          );
    const records = await registry.read();
    const previous = records.find((r) => r.name === manifest.name);
    const record: PluginRecord = {
      name: manifest.name,
      source: sourceOf(spec, options.scope, options),
      root: manifest.root,
      ...(manifest.version ? { version: manifest.version } : {}),
      enabled: options.keepEnabled && previous ? previous.enabled : true,
      addedAt: (options.now ?? new Date()).toISOString(),
    };
    // The same package renamed in its plugin.json is replaced too: one folder, one record.
    const kept = records.filter((r) => r.name !== manifest.name && r.root !== manifest.root);
    await registry.write([...kept, record]);
    const warnings: string[] = [];
    const oldPackage =
      previous?.source.startsWith("npm:") && previous.root !== record.root
        ? await installedPackageName(prefix, previous.root)
        : undefined;
    if (npm && oldPackage)
      await npmUninstall(npm, prefix, oldPackage, options.signal).catch((error: unknown) => {
        warnings.push(`The package it replaced stays installed: ${(error as Error).message}`);
      });
    return { record, manifest, warnings, ...(previous ? { previous } : {}) };
  }, options.signal);
  if (!(await trustsWhenAdded(options, added.record))) return added;
  const { name, root } = added.record;
  const code = await trustPluginCode({ ...options, name, root }).catch((error: unknown) => {
    // It is registered: say so, or the user takes it for not added and runs leave it out unsaid.
    if (!(error instanceof ResonError) || error.code !== "plugin_invalid") throw error;
    throw new ResonError(
      "plugin_invalid",
      `Added plugin "${name}" (${options.scope}), but it is not trusted, so runs leave it out: ${error.message}`,
      { hint: `${error.hint ? `${error.hint} ` : ""}Once it is fixed, \`reson plugin trust ${name}\`.` },
    );
  });
  return { ...added, trustedHash: code.hash };
}

/** A project's plugin unless the caller asks first; a user's folder that needs trust always. */
async function trustsWhenAdded(options: AddPluginOptions, record: PluginRecord): Promise<boolean> {
  if (options.scope === "project") return options.trust !== false;
  const home = await realpath(options.home).catch(() => options.home);
  return needsTrust("user", record.root, home);
}

function notFound(name: string, scope: PluginScope, file: string): ResonError {
  const other = scope === "user" ? "--project" : "no --project";
  return new ResonError("not_found", `There is no plugin "${name}" at ${scope} scope (${file}).`, {
    hint: `\`reson plugin list\` shows the plugins of both scopes; for the other scope, give ${other}.`,
  });
}

export interface RemovedPlugin {
  record: PluginRecord;
  /** The npm package uninstalled with it (none for a folder, which is never deleted). */
  uninstalled?: string;
  warnings: string[];
}

/** Removes the record; an npm-installed package is uninstalled, a folder left where it is. */
export async function removePlugin(options: PluginChangeOptions & { name: string }): Promise<RemovedPlugin> {
  const registry = registryOf(options.scope, options);
  const prefix = pluginPrefix(options.scope, options);
  await registry.existing(options.name);
  return registry.locked(async () => {
    const records = await registry.read();
    const record = records.find((r) => r.name === options.name);
    if (!record) throw notFound(options.name, options.scope, registry.file);
    await registry.write(records.filter((r) => r !== record));
    const pkg = record.source.startsWith("npm:")
      ? await installedPackageName(prefix, record.root)
      : undefined;
    const removed: RemovedPlugin = { record, warnings: [] };
    await trustLocked(
      options,
      async () => {
        await forgetPluginTrust(options.home, trustKey(options.scope, options.workspace), record.name);
        await prunePluginCode(options.home, await pluginCodeInUse(options.home));
      },
      options.signal,
    );
    if (!pkg) return removed;
    try {
      await npmUninstall(options.npm ?? (await findNpm()), prefix, pkg, options.signal);
      removed.uninstalled = pkg;
    } catch (error) {
      removed.warnings.push((error as Error).message);
    }
    return removed;
  }, options.signal);
}

/** Turns a plugin on or off; says whether that changed anything. */
export async function setPluginEnabled(
  options: PluginChangeOptions & { name: string; enabled: boolean },
): Promise<{ record: PluginRecord; changed: boolean }> {
  const registry = registryOf(options.scope, options);
  await registry.existing(options.name);
  return registry.locked(async () => {
    const records = await registry.read();
    const record = records.find((r) => r.name === options.name);
    if (!record) throw notFound(options.name, options.scope, registry.file);
    if (record.enabled === options.enabled) return { record, changed: false };
    const updated = { ...record, enabled: options.enabled };
    await registry.write(records.map((r) => (r === record ? updated : r)));
    return { record: updated, changed: true };
  }, options.signal);
}

/** A registered plugin of a scope, or undefined. */
export async function findPlugin(
  name: string,
  scope: PluginScope,
  places: PluginPlaces,
): Promise<PluginRecord | undefined> {
  return (await registryOf(scope, places).read()).find((r) => r.name === name);
}

/**
 * Trusts a registered plugin in its present form (a project's for this workspace, a user's for
 * every one); returns the hash trusted.
 */
export async function trustRegisteredPlugin(
  options: PluginPlaces & { scope: PluginScope; name: string; signal: AbortSignal; hash?: string },
): Promise<string> {
  const record = await findPlugin(options.name, options.scope, options);
  if (!record) throw notFound(options.name, options.scope, registryPath(options.scope, options));
  const root = await realpath(record.root).catch(() => record.root);
  const code = await trustPluginCode({
    ...options,
    name: record.name,
    root,
    ...(options.hash ? { expected: options.hash } : {}),
  });
  return code.hash;
}

/** Whether a registered plugin loads only once trusted (see needsTrust). */
export async function pluginNeedsTrust(
  record: PluginRecord,
  scope: PluginScope,
  places: PluginPlaces,
): Promise<boolean> {
  const [root, home] = await Promise.all([
    realpath(record.root).catch(() => record.root),
    realpath(places.home).catch(() => places.home),
  ]);
  return needsTrust(scope, root, home);
}

/** The records `reson plugin update` re-installs: npm ones (all of a scope, or the one named). */
export async function updatablePlugins(
  scope: PluginScope,
  places: PluginPlaces,
  name?: string,
): Promise<PluginRecord[]> {
  const records = await registryOf(scope, places).read();
  if (name !== undefined && !records.some((r) => r.name === name))
    throw notFound(name, scope, registryPath(scope, places));
  return records.filter((r) => (name === undefined || r.name === name) && r.source.startsWith("npm:"));
}
