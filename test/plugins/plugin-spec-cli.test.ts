// What `reson plugin add <spec>` takes a spec for: a folder, a tarball, or an npm spec (with its
// package name when the spec says it); a spec carrying a credential is refused, since the spec
// is written to the registry file.
import { mkdirSync, mkdtempSync, realpathSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parsePluginSpec } from "../../src/plugins/index.js";

const cwd = realpathSync(mkdtempSync(join(tmpdir(), "reson-spec-")));
mkdirSync(join(cwd, "tools", "lint"), { recursive: true });
mkdirSync(join(cwd, "left-pad"));
writeFileSync(join(cwd, "lint-1.0.0.tgz"), "");

describe("plugin specs", () => {
  it.each([
    ["./tools/lint", { kind: "folder", path: join(cwd, "tools/lint") }],
    ["tools/lint", { kind: "folder", path: join(cwd, "tools/lint") }],
    [cwd, { kind: "folder", path: cwd }],
    ["lint-1.0.0.tgz", { kind: "tarball", path: join(cwd, "lint-1.0.0.tgz") }],
    // A bare word is a package name, as for npm, even beside a folder of that name.
    ["left-pad", { kind: "npm", spec: "left-pad", name: "left-pad" }],
    ["left-pad@1.3.0", { kind: "npm", spec: "left-pad@1.3.0", name: "left-pad" }],
    ["@acme/reson-lint", { kind: "npm", spec: "@acme/reson-lint", name: "@acme/reson-lint" }],
    ["@acme/reson-lint@^2", { kind: "npm", spec: "@acme/reson-lint@^2", name: "@acme/reson-lint" }],
    ["lint@npm:@acme/reson-lint@2", { kind: "npm", spec: "lint@npm:@acme/reson-lint@2", name: "lint" }],
    ["github:acme/reson-lint", { kind: "npm", spec: "github:acme/reson-lint" }],
    [
      "git+ssh://git@github.com/acme/reson-lint.git",
      { kind: "npm", spec: "git+ssh://git@github.com/acme/reson-lint.git" },
    ],
  ])("%s", async (spec, expected) => {
    expect(await parsePluginSpec(spec, cwd)).toEqual(expected);
  });

  it.each([
    "https://ci:s3cret@registry.example.com/lint-1.0.0.tgz",
    "git+https://ghp_0123456789abcdef@github.com/acme/reson-lint.git",
    "https://cdn.example.com/lint-1.0.0.tgz?X-Amz-Signature=abc",
    "https://example.com/lint.tgz?token=abc",
  ])("refuses %s, which holds a credential", async (spec) => {
    await expect(parsePluginSpec(spec, cwd)).rejects.toMatchObject({ code: "usage_error" });
  });

  it("says when a path names nothing", async () => {
    await expect(parsePluginSpec("./missing", cwd)).rejects.toMatchObject({
      code: "usage_error",
      message: expect.stringContaining(join(cwd, "missing")),
    });
    await expect(parsePluginSpec("missing-1.0.0.tgz", cwd)).rejects.toMatchObject({ code: "usage_error" });
  });
});
