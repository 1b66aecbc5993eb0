// Folders the user trusts as a workspace although they are broad (the home folder, a folder
// above it, or one holding $RESON_HOME): answered once in the interactive terminal, kept in
// $RESON_HOME/trusted-folders.json, by real path. Removing a folder's entry (or the file)
// revokes it. Only the user's own folder holds this: no workspace file can trust itself.
import { mkdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { writeFileAtomic } from "../core/atomic-write.js";
import { ResonError } from "../core/errors.js";

export const TRUSTED_FOLDERS_FILE = "trusted-folders.json";

interface TrustedFolders {
  /** By real path: when the user said yes. */
  folders: Record<string, { trustedAt: string }>;
}

export function trustedFoldersPath(home: string): string {
  return join(home, TRUSTED_FOLDERS_FILE);
}

async function readTrusted(home: string): Promise<TrustedFolders> {
  const file = trustedFoldersPath(home);
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return { folders: {} };
    throw error;
  }
  try {
    const parsed = JSON.parse(text) as Partial<TrustedFolders>;
    if (typeof parsed.folders === "object" && parsed.folders !== null && !Array.isArray(parsed.folders))
      return { folders: parsed.folders };
  } catch {
    // said below
  }
  throw new ResonError("config_invalid", `${file} is not a valid list of trusted folders.`, {
    hint: `Fix it or delete it (every folder in it is then untrusted): { "folders": { "/home/me": { "trustedAt": "…" } } }.`,
    details: { file },
  });
}

/** Whether the user trusted `folder` (a real path) as a workspace. */
export async function isTrustedFolder(home: string, folder: string): Promise<boolean> {
  return Object.hasOwn((await readTrusted(home)).folders, folder);
}

/** Remembers that the user trusts `folder` (a real path) as a workspace. */
export async function trustFolder(home: string, folder: string, now = new Date()): Promise<void> {
  const trusted = await readTrusted(home);
  trusted.folders[folder] = { trustedAt: now.toISOString() };
  await mkdir(home, { recursive: true, mode: 0o700 });
  await writeFileAtomic(trustedFoldersPath(home), `${JSON.stringify(trusted, null, 2)}\n`);
}
