// A project's plugins run code with the user's rights, so they load only after the user
// trusted that exact package once: trust is kept per workspace and plugin name with a hash of
// the plugin's files ($RESON_HOME/plugin-trust.json); a changed package asks again. No project
// file can trust itself.
import { createHash } from "node:crypto";
import { mkdir, readdir, readFile } from "node:fs/promises";
import { join, relative } from "node:path";
import { writeFileAtomic } from "../core/atomic-write.js";
import { ResonError } from "../core/errors.js";

export const PLUGIN_TRUST_FILE = "plugin-trust.json";

/** Beyond these a package is too big to hash (and to trust): a user can still add it at user scope. */
const MAX_FILES = 5000;
const MAX_BYTES = 64 * 1024 * 1024;

interface TrustFile {
  /** workspace real path -> plugin name -> package hash and when. */
  workspaces: Record<string, Record<string, { hash: string; trustedAt: string }>>;
}

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

async function readTrust(home: string): Promise<TrustFile> {
  const file = join(home, PLUGIN_TRUST_FILE);
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return { workspaces: {} };
    throw error;
  }
  try {
    const parsed = JSON.parse(text) as Partial<TrustFile>;
    if (typeof parsed.workspaces === "object" && parsed.workspaces !== null)
      return { workspaces: parsed.workspaces };
  } catch {
    // said below
  }
  throw new ResonError("config_invalid", `${file} is not a valid list of trusted plugins.`, {
    hint: "Delete it; reson asks again before loading each project plugin.",
    details: { file },
  });
}

export async function isPluginTrusted(
  home: string,
  workspace: string,
  name: string,
  hash: string,
): Promise<boolean> {
  return (await readTrust(home)).workspaces[workspace]?.[name]?.hash === hash;
}

export async function trustPlugin(
  home: string,
  workspace: string,
  name: string,
  hash: string,
  now = new Date(),
): Promise<void> {
  const trust = await readTrust(home);
  const plugins = trust.workspaces[workspace] ?? {};
  plugins[name] = { hash, trustedAt: now.toISOString() };
  trust.workspaces[workspace] = plugins;
  await mkdir(home, { recursive: true, mode: 0o700 });
  await writeFileAtomic(join(home, PLUGIN_TRUST_FILE), `${JSON.stringify(trust, null, 2)}\n`, {
    mode: 0o600,
  });
}
