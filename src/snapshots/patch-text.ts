// Changes between snapshots as a unified diff in git's format (`diff --git a/… b/…`, new and
// deleted file modes, mode changes, "Binary files … differ"), so it reads like `git diff` and
// `git apply` takes it. What a snapshot did not track is named with the reason instead. A name
// with a control character, a quote, a backslash or a byte past ASCII is quoted as git quotes
// it ("a/new\nline"), so a file's name can neither break the patch nor steer a terminal.
import { CONTEXT_LINES, lineHunks } from "../core/line-hunks.js";
import type { ObjectStore } from "./object-store.js";
import type { PathChange, TreeEntry } from "./types.js";

/** Files larger than this are named, not diffed line by line. */
const MAX_DIFF_BYTES = 1024 * 1024;

const NOT_TRACKED: Record<string, string> = {
  ignored: "ignored (.gitignore or snapshots.exclude)",
  too_large: "larger than snapshots.maxFileBytes",
  git: "a .git folder",
  reson_home: "reson's own folder",
  other_mount: "another file system",
  special: "not a regular file",
  unreadable: "unreadable",
  secret: "holds one of your secrets, never copied",
  name_not_utf8: "its name is not UTF-8",
};

const NAMED_ESCAPES: Record<number, string> = {
  7: "a",
  8: "b",
  9: "t",
  10: "n",
  11: "v",
  12: "f",
  13: "r",
  34: '"',
  92: "\\",
};

/** `name` as git writes it in a patch: as it is when plain, else in quotes with C escapes (bytes past ASCII in octal). */
export function quotedPath(name: string): string {
  const bytes = Buffer.from(name, "utf8");
  let plain = true;
  for (const byte of bytes) if (byte < 0x20 || byte === 0x22 || byte === 0x5c || byte >= 0x7f) plain = false;
  if (plain) return name;
  let out = '"';
  for (const byte of bytes) {
    const named = NAMED_ESCAPES[byte];
    if (named !== undefined) out += `\\${named}`;
    else if (byte < 0x20 || byte >= 0x7f) out += `\\${byte.toString(8).padStart(3, "0")}`;
    else out += String.fromCharCode(byte);
  }
  return `${out}"`;
}

/** Why a snapshot left an entry out, in words. */
export function notTrackedReason(entry: TreeEntry): string {
  return NOT_TRACKED[entry.reason ?? ""] ?? "not tracked";
}

function gitMode(entry: TreeEntry): string {
  if (entry.kind === "link") return "120000";
  return (0o100000 | (entry.mode & 0o777)).toString(8);
}

function contentOf(objects: ObjectStore, entry: TreeEntry | undefined): Buffer | undefined {
  if (!entry || (entry.kind !== "file" && entry.kind !== "link")) return undefined;
  return objects.get(entry.hash);
}

function isBinary(bytes: Buffer | undefined): boolean {
  return bytes?.subarray(0, 8000).includes(0) === true;
}

/** A unified diff of `changes` (from tree-diff), with the contents from `objects`. */
export async function patchText(objects: ObjectStore, changes: readonly PathChange[]): Promise<string> {
  const out: string[] = [];
  for (const change of changes) {
    const { before, after } = change;
    const path = quotedPath(change.path);
    // git quotes the prefix with the name: "a/new\nline".
    const side = (prefix: string) => quotedPath(`${prefix}/${change.path}`);
    if (before?.kind === "excluded" || after?.kind === "excluded") {
      const entry = after?.kind === "excluded" ? after : before!;
      out.push(`# ${path}: not tracked (${notTrackedReason(entry)})`);
      continue;
    }
    if (before?.kind === "dir" || after?.kind === "dir") {
      out.push(
        change.change === "mode"
          ? `# ${path}/: folder mode ${before!.mode.toString(8)} -> ${after!.mode.toString(8)}`
          : `# ${path}/: empty folder ${change.change}`,
      );
      continue;
    }
    const header = out.length;
    out.push(`diff --git ${side("a")} ${side("b")}`);
    if (!before) out.push(`new file mode ${gitMode(after!)}`);
    else if (!after) out.push(`deleted file mode ${gitMode(before)}`);
    else if (gitMode(before) !== gitMode(after))
      out.push(`old mode ${gitMode(before)}`, `new mode ${gitMode(after)}`);
    if (change.change === "mode") continue;
    const oldBytes = contentOf(objects, before);
    const newBytes = contentOf(objects, after);
    const oldName = before ? side("a") : "/dev/null";
    const newName = after ? side("b") : "/dev/null";
    if (isBinary(oldBytes) || isBinary(newBytes)) {
      out.push(`Binary files ${oldName} and ${newName} differ`);
      continue;
    }
    if ((oldBytes?.length ?? 0) > MAX_DIFF_BYTES || (newBytes?.length ?? 0) > MAX_DIFF_BYTES) {
      out.push(`# ${path}: ${oldBytes?.length ?? 0} -> ${newBytes?.length ?? 0} bytes (too large to show)`);
      continue;
    }
    const { hunks, whole } = await lineHunks(
      oldBytes?.toString("utf8") ?? "",
      newBytes?.toString("utf8") ?? "",
      CONTEXT_LINES,
    );
    if (hunks.length === 0) continue;
    // Said before the file's header, where a patch tool skips it as it skips the notes above.
    if (whole)
      out.splice(
        header,
        0,
        `# ${path}: too many changes for a line-by-line diff: shown as a whole replacement`,
      );
    out.push(`--- ${oldName}`, `+++ ${newName}`);
    for (const hunk of hunks) {
      // As `diff -u` numbers them: a side with no lines counts from the line before it.
      const oldStart = hunk.oldLines === 0 ? hunk.oldStart - 1 : hunk.oldStart;
      const newStart = hunk.newLines === 0 ? hunk.newStart - 1 : hunk.newStart;
      out.push(`@@ -${oldStart},${hunk.oldLines} +${newStart},${hunk.newLines} @@`, ...hunk.lines);
    }
  }
  return out.length === 0 ? "" : `${out.join("\n")}\n`;
}
