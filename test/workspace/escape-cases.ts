// The escape table: every way out of the workspace we could think of, shared by the
// workspace tests (resolve) and the tool tests (read, write, edit, list, glob, grep).
import type { TempLayout } from "./temp-dirs.js";

export interface EscapeCase {
  name: string;
  path: string;
  code: "path_outside_workspace" | "path_invalid";
}

/** Symlinks the cases rely on, made under the root by `layout.link`. */
export function escapeLinks(layout: TempLayout): Record<string, string> {
  return {
    "link-file-out": `${layout.outside}/secret.txt`,
    "link-dir-out": layout.outside,
    "link-rel-out": "../outside/secret.txt",
    "link-sibling": `${layout.sibling}/secret.txt`,
    chain1: "chain2",
    chain2: "chain3",
    chain3: `${layout.outside}/secret.txt`,
    "dangling-out": `${layout.outside}/does-not-exist.txt`,
    "dangling-dir-out": `${layout.outside}/no-such-dir`,
    "src/up": "../..",
    "src/deep-out": "../link-dir-out",
    loop1: "loop2",
    loop2: "loop1",
    "link-root-abs": "/",
    "link-dir-in": "src",
  };
}

export function escapeCases(layout: TempLayout): EscapeCase[] {
  const out = "path_outside_workspace" as const;
  const invalid = "path_invalid" as const;
  return [
    { name: "parent", path: "..", code: out },
    { name: "parent file", path: "../outside/secret.txt", code: out },
    { name: "dot parent", path: "./../outside/secret.txt", code: out },
    { name: "down then up twice", path: "a/../../outside/secret.txt", code: out },
    { name: "through an inside symlink then up", path: "link-dir-in/../../outside/secret.txt", code: out },
    { name: "absolute system file", path: "/etc/passwd", code: out },
    { name: "double-slash absolute", path: "//etc/passwd", code: out },
    { name: "filesystem root", path: "/", code: out },
    { name: "absolute outside file", path: `${layout.outside}/secret.txt`, code: out },
    { name: "absolute via root and ..", path: `${layout.root}/../outside/secret.txt`, code: out },
    { name: "sibling with the root as prefix", path: `${layout.sibling}/secret.txt`, code: out },
    { name: "sibling by relative path", path: "../ws-evil/secret.txt", code: out },
    { name: "symlink to outside file", path: "link-file-out", code: out },
    { name: "symlink to outside dir", path: "link-dir-out", code: out },
    { name: "file under symlinked outside dir", path: "link-dir-out/secret.txt", code: out },
    { name: "new file under symlinked outside dir", path: "link-dir-out/new.txt", code: out },
    { name: "new dirs under symlinked outside dir", path: "link-dir-out/a/b/new.txt", code: out },
    { name: "relative symlink out", path: "link-rel-out", code: out },
    { name: "symlink to sibling", path: "link-sibling", code: out },
    { name: "symlink chain", path: "chain1", code: out },
    { name: "dangling symlink to outside", path: "dangling-out", code: out },
    { name: "new file under dangling dir symlink", path: "dangling-dir-out/new.txt", code: out },
    { name: "symlink to parent inside a folder", path: "src/up/outside/secret.txt", code: out },
    { name: "symlink to a symlink to outside", path: "src/deep-out/secret.txt", code: out },
    { name: "symlink to /", path: "link-root-abs/etc/passwd", code: out },
    { name: "symlink loop", path: "loop1", code: invalid },
    { name: "NUL byte", path: "inside.txt\0../../outside/secret.txt", code: invalid },
    { name: "backslash parents", path: "..\\..\\outside\\secret.txt", code: invalid },
    { name: "backslash inside", path: "src\\..\\..\\outside", code: invalid },
    { name: "home tilde", path: "~/.bashrc", code: invalid },
    { name: "bare tilde", path: "~", code: invalid },
    { name: "empty", path: "", code: invalid },
    { name: "lone surrogate", path: "a\uD800b.txt", code: invalid },
    { name: "path longer than file tools take", path: "a/".repeat(16_385), code: invalid },
    { name: "very long name", path: "x".repeat(300), code: invalid },
  ];
}

/**
 * Names that look like a way out but are ordinary names inside the workspace: each must work
 * in every file tool. `file` is made by the test, holding `INSIDE_TEXT`.
 */
export const LEGITIMATE_NAMES: ReadonlyArray<{ name: string; file: string }> = [
  { name: "a folder whose name starts with two dots", file: "..foo/bar.txt" },
  { name: "a file whose name starts with two dots", file: "..bar.txt" },
  { name: "three dots", file: ".../x.txt" },
  { name: "two dots then a space", file: ".. /x.txt" },
  { name: "a dotted name deeper down", file: "src/..hidden/x.txt" },
  { name: "a name ending in two dots", file: "foo../x.txt" },
];

export const INSIDE_TEXT = "legitimate inside text";

/** The case names, for test.each before the temporary folders exist. */
export function escapeCaseNames(): string[] {
  const placeholder = {
    base: "/b",
    root: "/b/ws",
    outside: "/b/outside",
    sibling: "/b/ws-evil",
  } as TempLayout;
  return escapeCases(placeholder).map((c) => c.name);
}
