// Whether one path lies within a folder, by its names: a name that merely starts with two
// dots ("..foo") is a name like any other, not a climb out of the folder.
import { isAbsolute, relative } from "node:path";

/** Whether `path` is `folder` or lies beneath it (both absolute; compared once normalised). */
export function isWithin(path: string, folder: string): boolean {
  const rel = relative(folder, path);
  return rel === "" || (rel !== ".." && !rel.startsWith("../") && !isAbsolute(rel));
}

/** Whether `path` lies beneath `folder`, and is not `folder` itself. */
export function isBelow(path: string, folder: string): boolean {
  return relative(folder, path) !== "" && isWithin(path, folder);
}
