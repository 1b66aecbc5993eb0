// The walks' fast ignore check (isIgnoredEntry: by name alone where every rule of a layer goes
// by name, files not tested against folder-only layers) against the full one (isIgnored on
// the path relative to each layer), for every entry a walk meets: adversarial rules and names.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  admitDirectory,
  type IgnoreLayer,
  isIgnored,
  isIgnoredEntry,
  patternLayer,
} from "../../src/workspace/index.js";

const RULES = [
  "node_modules/",
  "*.log",
  "dist",
  "build/",
  "!keep.log",
  "!build/",
  "a/b",
  "/root-only",
  "**/deep",
  "x*/",
  "src/*.ts",
  "# a comment",
  "",
  "trailing   ",
  "c\\ ",
  "\\!bang",
];
const NAMES = [
  "node_modules",
  "a",
  "b",
  "keep.log",
  "x.log",
  "dist",
  "build",
  "deep",
  "xy",
  "src",
  "c.ts",
  "root-only",
  "trailing",
  "c ",
  "!bang",
];

const rules = fc.array(fc.constantFrom(...RULES), { maxLength: 6 }).map((lines) => lines.join("\n"));
const path = fc.array(fc.constantFrom(...NAMES), { minLength: 1, maxLength: 4 });

describe("the ignore check by entry", () => {
  it("says what the check by path says for every entry a walk reaches", () => {
    fc.assert(
      fc.property(
        rules,
        rules,
        fc.constantFrom("", "a", "src"),
        path,
        fc.boolean(),
        (root, deeper, deeperAt, names, isDirectory) => {
          // The walk down to the entry's folder, as walk.ts and the snapshot walk do it: a folder
          // ignored on the way is not entered, and one entered gets its layers admitted.
          let layers: IgnoreLayer[] = [patternLayer("", root)];
          let dir = "";
          for (const name of names.slice(0, -1)) {
            const next = dir === "" ? name : `${dir}/${name}`;
            if (isIgnoredEntry(layers, dir, name, true) !== isIgnored(layers, next, true)) return false;
            if (isIgnored(layers, next, true)) return true;
            layers = admitDirectory(layers, next);
            if (next === deeperAt) layers = [...layers, patternLayer(next, deeper)];
            dir = next;
          }
          const name = names.at(-1)!;
          const full = dir === "" ? name : `${dir}/${name}`;
          return isIgnoredEntry(layers, dir, name, isDirectory) === isIgnored(layers, full, isDirectory);
        },
      ),
      { numRuns: 3000 },
    );
  });

  it("knows a layer of names alone and one of folders alone", () => {
    expect(patternLayer("", "node_modules/\n*.log\n# note\n")).toMatchObject({
      namesOnly: true,
      foldersOnly: false,
    });
    expect(patternLayer("", "node_modules/\ndist/\n")).toMatchObject({ namesOnly: true, foldersOnly: true });
    expect(patternLayer("", "node_modules/\n!dist/\n")).toMatchObject({ foldersOnly: false });
    expect(patternLayer("", "src/generated/\n")).toMatchObject({ namesOnly: false, foldersOnly: true });
    expect(patternLayer("", "/build\n")).toMatchObject({ namesOnly: false });
  });

  it("skips an ignored folder and keeps a re-included file", () => {
    const layers = [patternLayer("", "node_modules/\n*.log\n"), patternLayer("pkg", "!keep.log\n")];
    expect(isIgnoredEntry(layers, "pkg", "node_modules", true)).toBe(true);
    expect(isIgnoredEntry(layers, "pkg", "node_modules", false)).toBe(false);
    expect(isIgnoredEntry(layers, "pkg", "x.log", false)).toBe(true);
    expect(isIgnoredEntry(layers, "pkg", "keep.log", false)).toBe(false);
  });
});
