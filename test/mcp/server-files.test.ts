// Which workspace files a project's local MCP server runs, as its approval covers them: the
// script named, what it imports from the workspace (JavaScript as Node resolves it, Python's
// local modules), and what a package runner reads; nothing outside the workspace.
import { mkdirSync, realpathSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { serverFiles } from "../../src/mcp/server-files.js";
import { type TempDir, tempDir } from "../support/cli.js";

describe("the files a project MCP server runs", () => {
  let ws: TempDir;
  let outside: TempDir;
  let root: string;
  const write = (path: string, text: string) => {
    mkdirSync(dirname(join(ws.path, path)), { recursive: true });
    writeFileSync(join(ws.path, path), text);
  };
  const paths = async (config: { command: string; args?: string[]; cwd?: string }, env = {}) =>
    Object.keys((await serverFiles(config, root, env)).files);

  beforeEach(() => {
    ws = tempDir();
    outside = tempDir();
    root = realpathSync(ws.path);
  });
  afterEach(() => {
    ws.remove();
    outside.remove();
  });

  test("a JavaScript server: the script, its imports (a package in node_modules too) and its package.json", async () => {
    write("package.json", JSON.stringify({ type: "module" }));
    write("tools/server.js", 'import { a } from "./a.js";\nimport dep from "dep";\nconsole.log(a, dep);\n');
    write("tools/a.js", "export const a = 1;\n");
    write("tools/unused.js", "export const b = 2;\n");
    write("node_modules/dep/package.json", JSON.stringify({ name: "dep", main: "index.js" }));
    write("node_modules/dep/index.js", "module.exports = 3;\n");
    expect(await paths({ command: "node", args: ["tools/server.js"] })).toEqual([
      "node_modules/dep/index.js",
      "node_modules/dep/package.json",
      "package.json",
      "tools/a.js",
      "tools/server.js",
    ]);
  });

  test("a package planted nearer the script, which Node would load instead, changes what is covered", async () => {
    write("tools/server.js", 'const dep = require("dep");\nconsole.log(dep);\n');
    write("node_modules/dep/index.js", "module.exports = 3;\n");
    const before = await paths({ command: "node", args: ["tools/server.js"] });
    expect(before).toEqual(["node_modules/dep/index.js", "tools/server.js"]);
    write("tools/node_modules/dep/index.js", "module.exports = 4;\n");
    expect(await paths({ command: "node", args: ["tools/server.js"] })).toEqual([
      "tools/node_modules/dep/index.js",
      "tools/server.js",
    ]);
  });

  test("a Python server: the script and the local modules and packages it imports, relative imports too", async () => {
    write("server.py", "import os\nimport helpers\nfrom pkg.sub import thing\n");
    write("helpers.py", "from . import nothing_here\n");
    write("pkg/__init__.py", "");
    write("pkg/sub.py", "from .deep import x\n");
    write("pkg/deep.py", "x = 1\n");
    write("other.py", "print('not imported')\n");
    expect(await paths({ command: "python3", args: ["server.py"] })).toEqual([
      "helpers.py",
      "pkg/__init__.py",
      "pkg/deep.py",
      "pkg/sub.py",
      "server.py",
    ]);
  });

  test("python -m: the module from the server's folder, and its package", async () => {
    write("tools/__init__.py", "");
    write("tools/server.py", "from tools import lib\n");
    write("tools/lib.py", "");
    expect(await paths({ command: "python3", args: ["-m", "tools.server"] })).toEqual([
      "tools/__init__.py",
      "tools/lib.py",
      "tools/server.py",
    ]);
  });

  test("a package runner: what it reads its scripts and dependencies from; a script named by path; --flag=value", async () => {
    write("package.json", JSON.stringify({ scripts: { mcp: "node x.js" } }));
    write(".npmrc", "registry=http://127.0.0.1:1/\n");
    write("bin/serve", "#!/bin/sh\n");
    write("conf/server.toml", "x = 1\n");
    expect(await paths({ command: "npm", args: ["run", "mcp"] })).toEqual([".npmrc", "package.json"]);
    expect(await paths({ command: "./bin/serve", args: ["--config=conf/server.toml"] })).toEqual([
      "bin/serve",
      "conf/server.toml",
    ]);
  });

  test("variables and cwd as at the start; nothing outside the workspace, not through a link either", async () => {
    write("srv/main.py", "");
    writeFileSync(join(outside.path, "evil.py"), "");
    symlinkSync(join(outside.path, "evil.py"), join(ws.path, "link.py"));
    expect(
      await paths(
        { command: "python3", args: [["$", "{ENTRY}"].join("")], cwd: "srv" },
        { ENTRY: "main.py" },
      ),
    ).toEqual(["srv/main.py"]);
    expect(await paths({ command: "python3", args: ["link.py", join(outside.path, "evil.py")] })).toEqual([]);
    expect(
      await paths({ command: "npx", args: ["-y", "@modelcontextprotocol/server-filesystem", "."] }),
    ).toEqual([]);
  });

  test("a remote server runs no workspace file", async () => {
    write("package.json", "{}");
    expect((await serverFiles({ url: "https://mcp.example.com/mcp" }, root, {})).files).toEqual({});
  });
});
