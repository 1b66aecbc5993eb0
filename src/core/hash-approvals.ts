// Approvals the user gave once, kept in a file of their own ($RESON_HOME/…) by workspace real
// path and name, each tied to a hash of what was approved (a project's MCP server definition,
// a project's plugin package): a changed thing asks again, and no project file can approve
// itself. A missing file approves nothing; a broken one is config_invalid with what to do.
import { mkdir, readFile } from "node:fs/promises";
import { dirname } from "node:path";
import { writeFileAtomic } from "./atomic-write.js";
import { ResonError } from "./errors.js";

/** workspace real path -> name -> the hash approved, and when (under the file's own key). */
type Approvals = Record<string, Record<string, { hash: string } & Record<string, string>>>;

export interface HashApprovalFile {
  path: string;
  /** What the file lists, for its error ("approved MCP servers"). */
  what: string;
  /** What deleting it means, for its error's hint. */
  whenDeleted: string;
  /** The key of an entry's time ("approvedAt"), kept as earlier files have it. */
  stampKey: string;
}

/** Every approval in the file: workspace real path -> name -> entry. */
export async function readApprovals(file: HashApprovalFile): Promise<Approvals> {
  let text: string;
  try {
    text = await readFile(file.path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return {};
    throw error;
  }
  try {
    const parsed = JSON.parse(text) as { workspaces?: unknown };
    if (typeof parsed.workspaces === "object" && parsed.workspaces !== null)
      return parsed.workspaces as Approvals;
  } catch {
    // said below
  }
  throw new ResonError("config_invalid", `${file.path} is not a valid list of ${file.what}.`, {
    hint: `Delete it; ${file.whenDeleted}.`,
    details: { file: file.path },
  });
}

export async function isHashApproved(
  file: HashApprovalFile,
  workspace: string,
  name: string,
  hash: string,
): Promise<boolean> {
  return (await readApprovals(file))[workspace]?.[name]?.hash === hash;
}

/** The approval of `name` in `workspace`, with whatever was kept beside its hash. */
export async function approvalOf(
  file: HashApprovalFile,
  workspace: string,
  name: string,
): Promise<({ hash: string } & Record<string, string>) | undefined> {
  return (await readApprovals(file))[workspace]?.[name];
}

/** Records the approval (0600: only the user reads or changes what they approved), with `extra` kept beside the hash. */
export async function approveHash(
  file: HashApprovalFile,
  workspace: string,
  name: string,
  hash: string,
  now = new Date(),
  extra: Record<string, string> = {},
): Promise<void> {
  const approvals = await readApprovals(file);
  const names = approvals[workspace] ?? {};
  names[name] = { ...extra, hash, [file.stampKey]: now.toISOString() };
  approvals[workspace] = names;
  await writeApprovals(file, approvals);
}

/** Forgets the approval of `name` in `workspace`; says whether there was one. */
export async function revokeHash(file: HashApprovalFile, workspace: string, name: string): Promise<boolean> {
  const approvals = await readApprovals(file);
  const names = approvals[workspace];
  if (!names?.[name]) return false;
  delete names[name];
  if (Object.keys(names).length === 0) delete approvals[workspace];
  await writeApprovals(file, approvals);
  return true;
}

async function writeApprovals(file: HashApprovalFile, approvals: Approvals): Promise<void> {
  await mkdir(dirname(file.path), { recursive: true, mode: 0o700 });
  await writeFileAtomic(file.path, `${JSON.stringify({ workspaces: approvals }, null, 2)}\n`, {
    mode: 0o600,
  });
}
