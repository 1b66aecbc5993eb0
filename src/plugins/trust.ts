// A project's plugins run code with the user's rights, so they load only after the user
// trusted that exact package once: trust is kept per workspace and plugin name with a hash of
// the plugin's files ($RESON_HOME/plugin-trust.json); a changed package asks again. No project
// file can trust itself.
import { createHash } from "node:crypto";
import { readdir, readFile } from "node:fs/promises";
import { join, relative } from "node:path";
import { ResonError } from "../core/errors.js";
import { approveHash, type HashApprovalFile, isHashApproved } from "../core/hash-approvals.js";

export const PLUGIN_TRUST_FILE = "plugin-trust.json";

/** Beyond these a package is too big to hash (and to trust): a user can still add it at user scope. */
const MAX_FILES = 5000;
const MAX_BYTES = 64 * 1024 * 1024;

async function filesOf(root: string, dir: string, out: string[]): Promise<void> {
  const entries = await readdir(dir, { withFileTypes: true });
  for (const entry of entries) {
    // Installed dependencies are the package manager's; the plugin's own files are what it runs.
    if (entry.name === "node_modules" || entry.name === ".git") continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) await filesOf(root, path, out);
    else if (entry.isFile() || entry.isSymbolicLink()) out.push(relative(root, path));
    if (out.length > MAX_FILES)
      throw new ResonError(
        "plugin_invalid",
        `The plugin in ${root} has more than ${MAX_FILES} files to check.`,
        {
          hint: "Add it at user scope (`reson plugin add` without --project) if you trust it.",
        },
      );
  }
}

/** A hash of the plugin's own files: their paths and contents, in a stable order. */
export async function pluginHash(root: string): Promise<string> {
  const files: string[] = [];
  await filesOf(root, root, files);
  files.sort();
  const hash = createHash("sha256");
  let bytes = 0;
  for (const file of files) {
    const content = await readFile(join(root, file)).catch(() => Buffer.alloc(0));
    bytes += content.length;
    if (bytes > MAX_BYTES)
      throw new ResonError("plugin_invalid", `The plugin in ${root} is larger than ${MAX_BYTES >> 20} MiB.`, {
        hint: "Add it at user scope (`reson plugin add` without --project) if you trust it.",
      });
    hash.update(`${file}\0${content.length}\0`).update(content);
  }
  return hash.digest("hex").slice(0, 32);
}

function trustFile(home: string): HashApprovalFile {
  return {
    path: join(home, PLUGIN_TRUST_FILE),
    what: "trusted plugins",
    whenDeleted: "reson asks again before loading each project plugin",
    stampKey: "trustedAt",
  };
}

export function isPluginTrusted(
  home: string,
  workspace: string,
  name: string,
  hash: string,
): Promise<boolean> {
  return isHashApproved(trustFile(home), workspace, name, hash);
}

export function trustPlugin(
  home: string,
  workspace: string,
  name: string,
  hash: string,
  now = new Date(),
): Promise<void> {
  return approveHash(trustFile(home), workspace, name, hash, now);
}
