// The repositories below a workspace's root are looked for once per run: the permission gate
// (which asks before a file tool writes one's protected files) and the run's workspace (whose
// sandbox keeps them read-only) share the look (gateOptions hands the gate's holder on), so a
// run does not read every folder twice, and both protect the same repositories.
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  type NestedRepositories,
  nestedProtectedEntry,
  protectedTargets,
  workspacePolicy,
} from "../../src/workspace/index.js";

describe("the repositories below the root, looked for once", () => {
  let root: string;
  beforeEach(() => {
    root = realpathSync(mkdtempSync(join(tmpdir(), "reson-nested-shared-")));
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  const repository = (name: string) => {
    mkdirSync(join(root, name, ".git"), { recursive: true });
    writeFileSync(join(root, name, "lefthook.yml"), "pre-commit: {}\n");
  };
  const protectedRepos = (holder: NestedRepositories) =>
    protectedTargets(workspacePolicy(root, { nested: holder }))
      .map((target) => target.relative)
      .filter((path) => path?.endsWith("/lefthook.yml"));

  it("the gate's look is the workspace's: both protect the same repositories", () => {
    repository("app");
    const holder: NestedRepositories = {};
    expect(nestedProtectedEntry(root, holder, "app/lefthook.yml")?.path).toBe("lefthook.yml");
    // A repository made after the look (as the agent makes its own in a run) is in neither.
    repository("scratch");
    expect(nestedProtectedEntry(root, holder, "scratch/lefthook.yml")).toBeUndefined();
    expect(protectedRepos(holder)).toEqual(["app/lefthook.yml"]);
    // A holder of its own looks anew, and another root is looked for again.
    expect(protectedRepos({})).toEqual(["app/lefthook.yml", "scratch/lefthook.yml"].sort());
    const elsewhere = realpathSync(mkdtempSync(join(tmpdir(), "reson-nested-other-")));
    try {
      expect(nestedProtectedEntry(elsewhere, holder, "app/lefthook.yml")).toBeUndefined();
      expect(holder.root).toBe(elsewhere);
    } finally {
      rmSync(elsewhere, { recursive: true, force: true });
    }
  });
});
