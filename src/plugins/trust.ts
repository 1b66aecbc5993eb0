// A project's plugins run code with the user's rights, so they load only after the user
// trusted that exact package once: trust is kept per workspace and plugin name with a hash of
// the plugin's own files ($RESON_HOME/plugin-trust.json) and the key of the copy of everything
// it runs (plugin-code.ts), from which it then loads; a changed package asks again. No project
// file can trust itself. A user plugin whose folder lies outside $RESON_HOME (one a run's
// commands may reach) is trusted the same way, once for every workspace.
import { createHash } from "node:crypto";
import { readdir, readFile, stat } from "node:fs/promises";
import { join, relative } from "node:path";
import { ResonError } from "../core/errors.js";
import {
  approvalOf,
  approveHash,
  type HashApprovalFile,
  readApprovals,
  revokeHash,
} from "../core/hash-approvals.js";
import { isWithin } from "../core/path-within.js";
import type { PluginScope } from "./types.js";

export const PLUGIN_TRUST_FILE = "plugin-trust.json";

/** Beyond these a package (with what it runs, for a copy) is too big to hash and trust: a user can still add it at user scope. */
export const MAX_PLUGIN_FILES = 5000;
export const MAX_PLUGIN_BYTES = 64 * 1024 * 1024;

export function tooBig(root: string, what: string): ResonError {
  return new ResonError("plugin_invalid", `The plugin in ${root} ${what}.`, {
    hint: "Pack it (`npm pack`) and add the tarball at user scope: it is installed into $RESON_HOME/plugins, which runs' commands cannot change, and runs from there.",
  });
}

async function filesOf(root: string, dir: string, out: string[]): Promise<void> {
  const entries = await readdir(dir, { withFileTypes: true });
  for (const entry of entries) {
    // A package's installed dependencies are not its own files: what of them it runs is copied
    // and hashed with it when trusted (plugin-code.ts).
    if (entry.name === "node_modules" || entry.name === ".git") continue;
    const path = join(dir, entry.name);
    // A link counts as what it points to: the copy a trusted plugin runs from holds that.
    const kind = entry.isSymbolicLink() ? await stat(path).catch(() => undefined) : entry;
    if (kind?.isDirectory()) await filesOf(root, path, out);
    else if (kind?.isFile()) out.push(relative(root, path));
    if (out.length > MAX_PLUGIN_FILES) throw tooBig(root, `has more than ${MAX_PLUGIN_FILES} files to check`);
  }
}

/** A folder's files (paths relative to it, sorted), leaving out node_modules and .git. */
export async function packageFiles(root: string): Promise<string[]> {
  const files: string[] = [];
  await filesOf(root, root, files);
  return files.sort();
}

/** A hash of the plugin's own files: their paths and contents, in a stable order. */
export async function pluginHash(root: string): Promise<string> {
  const hash = createHash("sha256");
  let bytes = 0;
  for (const file of await packageFiles(root)) {
    const content = await readFile(join(root, file)).catch(() => Buffer.alloc(0));
    bytes += content.length;
    if (bytes > MAX_PLUGIN_BYTES) throw tooBig(root, `is larger than ${MAX_PLUGIN_BYTES >> 20} MiB`);
    hash.update(`${file}\0${content.length}\0`).update(content);
  }
  return hash.digest("hex").slice(0, 32);
}

/**
 * Where the trust of a plugin is kept in the file: a project's under its workspace, the user's
 * under "user" (no workspace's real path, which is absolute): theirs in every workspace.
 */
export function trustKey(scope: PluginScope, workspace: string): string {
  return scope === "user" ? "user" : workspace;
}

/**
 * Whether the plugin loads only once trusted: a project's always; a user's when its folder lies
 * outside $RESON_HOME (real paths both), where a run's commands may change it. What npm installed
 * into $RESON_HOME/plugins is out of their reach (the sandbox hides reson's home).
 */
export function needsTrust(scope: PluginScope, root: string, realHome: string): boolean {
  return scope === "project" || !isWithin(root, realHome);
}

function trustFile(home: string): HashApprovalFile {
  return {
    path: join(home, PLUGIN_TRUST_FILE),
    what: "trusted plugins",
    whenDeleted: "reson asks again before loading each project plugin and each of your folder plugins",
    stampKey: "trustedAt",
  };
}

/** What the user trusted: the plugin's own files (`hash`) and the copy it runs from (`code`, its key). */
export interface PluginTrust {
  hash: string;
  code: string;
}

/**
 * The trusted copy's key when the plugin is trusted with these files, else why it is not (and
 * the copy of the files it was trusted with, to tell what changed). `key` is trustKey's.
 */
export async function pluginTrustOf(
  home: string,
  key: string,
  name: string,
  hash: string,
): Promise<{ code: string } | { untrusted: string; trustedCode?: string }> {
  const entry = await approvalOf(trustFile(home), key, name);
  if (!entry)
    return {
      untrusted:
        key === "user"
          ? "not trusted yet: a folder plugin of yours runs from a copy made when you trust it, and this one has none (an earlier reson added it, or its trust was forgotten)"
          : "not trusted yet",
    };
  if (entry.hash !== hash)
    return {
      untrusted: "its files changed since you trusted it",
      ...(typeof entry.code === "string" && entry.code !== "" ? { trustedCode: entry.code } : {}),
    };
  // Trust given before reson kept copies covered none of what the plugin imports: asked once more.
  if (typeof entry.code !== "string" || entry.code === "")
    return {
      untrusted:
        "trusted by an earlier reson, which did not keep a copy of the code it runs (dependencies included); trust it once more",
    };
  return { code: entry.code };
}

export async function isPluginTrusted(
  home: string,
  key: string,
  name: string,
  hash: string,
): Promise<boolean> {
  return "code" in (await pluginTrustOf(home, key, name, hash));
}

export function trustPlugin(
  home: string,
  key: string,
  name: string,
  trust: PluginTrust,
  now = new Date(),
): Promise<void> {
  return approveHash(trustFile(home), key, name, trust.hash, now, { code: trust.code });
}

export function forgetPluginTrust(home: string, key: string, name: string): Promise<boolean> {
  return revokeHash(trustFile(home), key, name);
}

/** The keys of the copies some trust still names (of any workspace, or the user's). */
export async function pluginCodeInUse(home: string): Promise<Set<string>> {
  const keys = new Set<string>();
  for (const names of Object.values(await readApprovals(trustFile(home))))
    for (const entry of Object.values(names)) if (typeof entry.code === "string") keys.add(entry.code);
  return keys;
}
