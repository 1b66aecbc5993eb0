// Turns Node file-system errors into ResonErrors that name the workspace path (never the
// real absolute path) and say what to do next.
import { ResonError } from "../core/errors.js";

export function fileNotFound(path: string): ResonError {
  return new ResonError("file_not_found", `${path} does not exist.`, {
    hint: "Check the name with list_files or glob.",
    details: { path },
  });
}

export function toFsError(error: unknown, path: string): ResonError {
  if (error instanceof ResonError) return error;
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  switch (code) {
    case "ENOENT":
      return fileNotFound(path);
    case "ENOTDIR":
      return new ResonError("not_a_directory", `A parent of ${path} is a file, not a directory.`, {
        details: { path },
      });
    case "EISDIR":
      return new ResonError("not_a_file", `${path} is a directory.`, {
        hint: "Use list_files to see what it contains.",
        details: { path },
      });
    case "ELOOP":
      // O_NOFOLLOW met a symlink that appeared after the path was checked.
      return new ResonError("path_invalid", `${path} changed into a symbolic link while in use.`, {
        details: { path },
      });
    case "ENAMETOOLONG":
      return new ResonError("path_invalid", `${path} is too long.`, { details: { path } });
    case "EACCES":
    case "EPERM":
      return new ResonError("tool_failed", `Permission denied: ${path}.`, {
        details: { path },
        cause: error,
      });
    case "ENOSPC":
    case "EDQUOT":
      return new ResonError("tool_failed", `No space left to write ${path}.`, {
        details: { path },
        cause: error,
      });
    default: {
      const message = error instanceof Error ? error.message : String(error);
      return new ResonError("tool_failed", `File operation on ${path} failed: ${message}`, {
        details: { path },
        cause: error,
      });
    }
  }
}
