// Which folders a sandboxed command may be given to write: never `/`, a system folder, the
// home folder or one of its ancestors, nor a folder the policy hides. The workspace root and
// every opt-in extra writable folder pass through here before bwrap sees them.
import { isAbsolute, normalize } from "node:path";
import { ResonError } from "../../core/errors.js";
import { isWithin } from "../../core/path-within.js";
import { KERNEL_TREES, SYSTEM_DIRS } from "../root-risk.js";

/** Why a writable bind of `dir` would be unsafe, or undefined when it is fine. */
export function unsafeWritableReason(
  dir: string,
  readDeny: readonly string[],
  home: string,
): string | undefined {
  if (!isAbsolute(dir)) return "it is not an absolute path";
  const path = normalize(dir).replace(/(.)\/$/, "$1");
  if (path === "/") return "it is the whole file system";
  if (SYSTEM_DIRS.has(path)) return "it is a system folder";
  if (KERNEL_TREES.some((tree) => isWithin(path, tree))) return "it is a kernel file system";
  if (path === home) return "it is the home folder, which holds credentials and shell start-up files";
  if (isWithin(home, path)) return "it contains the home folder";
  // A hidden folder strictly inside the workspace stays hidden: its tmpfs is mounted after the
  // workspace bind. The workspace itself cannot be both writable and hidden.
  if (readDeny.includes(path)) return "it is on the list of folders commands must not see";
  return undefined;
}

/** Throws when `dir` may not be bound writable into the sandbox; `role` names it in the message. */
export function assertSafeWritable(
  dir: string,
  role: "workspace root" | "extra writable folder",
  readDeny: readonly string[],
  home: string,
): void {
  const reason = unsafeWritableReason(dir, readDeny, home);
  if (!reason) return;
  throw new ResonError("sandbox_refused", `Refusing to run commands with ${dir} as the ${role}: ${reason}.`, {
    hint:
      role === "workspace root"
        ? "Open a project folder (for example ~/code/my-project) as the workspace instead."
        : "Remove this folder from the extra writable folders, or name a narrower one.",
    details: { path: dir, role },
  });
}
