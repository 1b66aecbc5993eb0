// Which workspace files a project's local MCP server runs, as its approval covers them: the
// script named, what it imports from the workspace (JavaScript as Node resolves it, Python's
// local modules), and what a package runner reads; nothing outside the workspace.
import { execFileSync } from "node:child_process";
import {
  mkdirSync,
  readdirSync,
  readFileSync,
  realpathSync,
  statSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { dirname, join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from "vitest";
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

// Kept in $RESON_HOME with stamps of what it depended on, the answer is reused at the next start
// while nothing changed; what a run's command can change where Node or Python look is seen on
// that reused path too. The files are made once and aged past the cache's racy window (a stamp
// changed within 2 s of the computation is not trusted), then each test changes its own folder.
describe("the files a project MCP server runs, kept between starts", () => {
  let ws: TempDir;
  let home: TempDir;
  let root: string;
  const write = (path: string, text: string) => {
    mkdirSync(dirname(join(ws.path, path)), { recursive: true });
    writeFileSync(join(ws.path, path), text);
  };
  const files = async (config: { command: string; args?: string[]; cwd?: string }) =>
    (await serverFiles(config, root, {}, { home: home.path })).files;
  const keptFiles = () =>
    readdirSync(join(home.path, "cache", "mcp-server-files")).map((name) =>
      join(home.path, "cache", "mcp-server-files", name),
    );
  const stamp = (path: string) => {
    const stats = statSync(path, { bigint: true });
    return `${stats.ino}:${stats.mtimeNs}:${stats.ctimeNs}`;
  };

  beforeAll(async () => {
    ws = tempDir();
    home = tempDir();
    root = realpathSync(ws.path);
    write("same/server.mjs", 'import { a } from "./a.mjs";\nconsole.log(a);\n');
    write("same/a.mjs", "export const a = 1;\n");
    write("inplace/server.mjs", 'import { a } from "./a.mjs";\nconsole.log(a);\n');
    write("inplace/a.mjs", "export const a = 1;\n");
    write("nearer/tools/server.js", 'const dep = require("@scope/dep");\nconsole.log(dep);\n');
    write("nearer/node_modules/@scope/dep/index.js", "module.exports = 3;\n");
    write("nearer/tools/node_modules/@scope/other/index.js", "module.exports = 0;\n");
    write("broken/tools/server.js", 'const dep = require("dep");\nconsole.log(dep);\n');
    write("broken/node_modules/dep/index.js", "module.exports = 3;\n");
    write("broken/tools/node_modules/dep/package.json", JSON.stringify({ name: "dep", main: "lib/main.js" }));
    mkdirSync(join(ws.path, "broken/tools/node_modules/dep/lib"));
    write("index/server.js", 'const lib = require("./lib");\nconsole.log(lib);\n');
    write("index/lib/index.js", "module.exports = 1;\n");
    write("link/server.mjs", 'import { x } from "./a/to/x.mjs";\nconsole.log(x);\n');
    write("link/b/x.mjs", "export const x = 1;\n");
    write("link/c/x.mjs", "export const x = 2;\n");
    mkdirSync(join(ws.path, "link/a"));
    symlinkSync("../b", join(ws.path, "link/a/to"));
    write("pkg/server.js", 'const dep = require("dep");\nconsole.log(dep);\n');
    write("pkg/node_modules/dep/index.js", 'module.exports = require("./lib/to/x.js");\n');
    write("pkg/node_modules/dep/b/x.js", "module.exports = 1;\n");
    write("pkg/node_modules/dep/c/x.js", "module.exports = 2;\n");
    mkdirSync(join(ws.path, "pkg/node_modules/dep/lib"));
    symlinkSync("../b", join(ws.path, "pkg/node_modules/dep/lib/to"));
    write("py/srv/server.py", "import helpers\n");
    write("py/helpers.py", "x = 1\n");
    write("paths/server.ts", 'import { x } from "lib/later";\nconsole.log(x);\n');
    write("paths/tsconfig.json", JSON.stringify({ compilerOptions: { baseUrl: "." } }));
    await new Promise((done) => setTimeout(done, 2100));
  });
  afterAll(() => {
    ws.remove();
    home.remove();
  });

  test("a second start with nothing changed reuses the kept answer, kept for the user alone", async () => {
    const server = { command: "node", args: ["same/server.mjs"] };
    const first = await files(server);
    expect(Object.keys(first)).toEqual(["same/a.mjs", "same/server.mjs"]);
    const kept = keptFiles().find((file) => readFileSync(file, "utf8").includes("same/a.mjs"))!;
    expect(statSync(kept).mode & 0o777).toBe(0o600);
    const before = stamp(kept);
    expect(await files(server)).toEqual(first);
    // Reused: not computed again, so not written again.
    expect(stamp(kept)).toBe(before);
  });

  test("a file rewritten in place, same size and its mtime put back, is seen", async () => {
    const server = { command: "node", args: ["inplace/server.mjs"] };
    const first = await files(server);
    await files(server);
    const path = join(ws.path, "inplace/a.mjs");
    // Its times kept on a file outside the workspace, to the nanosecond, and put back.
    const times = join(home.path, "times");
    execFileSync("touch", ["-r", path, times]);
    writeFileSync(path, "export const a = 2;\n");
    execFileSync("touch", ["-r", times, path]);
    expect(statSync(path, { bigint: true }).mtimeNs).toBe(statSync(times, { bigint: true }).mtimeNs);
    const after = await files(server);
    expect(after["inplace/a.mjs"]).not.toBe(first["inplace/a.mjs"]);
    expect(after["inplace/server.mjs"]).toBe(first["inplace/server.mjs"]);
  });

  test("a package planted in a node_modules/@scope nearer the script is seen", async () => {
    const server = { command: "node", args: ["nearer/tools/server.js"] };
    expect(Object.keys(await files(server))).toEqual([
      "nearer/node_modules/@scope/dep/index.js",
      "nearer/tools/server.js",
    ]);
    write("nearer/tools/node_modules/@scope/dep/index.js", "module.exports = 4;\n");
    expect(Object.keys(await files(server))).toEqual([
      "nearer/tools/node_modules/@scope/dep/index.js",
      "nearer/tools/server.js",
    ]);
  });

  test("a file planted in a nearer node_modules/<dep> that did not resolve before is seen", async () => {
    const server = { command: "node", args: ["broken/tools/server.js"] };
    expect(Object.keys(await files(server))).toEqual([
      "broken/node_modules/dep/index.js",
      "broken/tools/server.js",
    ]);
    write("broken/tools/node_modules/dep/lib/main.js", "module.exports = 4;\n");
    expect(Object.keys(await files(server))).toEqual([
      "broken/tools/node_modules/dep/lib/main.js",
      "broken/tools/node_modules/dep/package.json",
      "broken/tools/server.js",
    ]);
  });

  test("a module planted beside a folder import, which Node would load first, is seen", async () => {
    const server = { command: "node", args: ["index/server.js"] };
    expect(Object.keys(await files(server))).toEqual(["index/lib/index.js", "index/server.js"]);
    write("index/lib.js", "module.exports = 2;\n");
    expect(Object.keys(await files(server))).toEqual(["index/lib.js", "index/server.js"]);
  });

  test("a symlink on an import's way, retargeted, is seen", async () => {
    const server = { command: "node", args: ["link/server.mjs"] };
    expect(Object.keys(await files(server))).toEqual(["link/b/x.mjs", "link/server.mjs"]);
    unlinkSync(join(ws.path, "link/a/to"));
    symlinkSync("../c", join(ws.path, "link/a/to"));
    expect(Object.keys(await files(server))).toEqual(["link/c/x.mjs", "link/server.mjs"]);
  });

  test("a symlink retargeted inside a package is seen", async () => {
    const server = { command: "node", args: ["pkg/server.js"] };
    expect(Object.keys(await files(server))).toEqual([
      "pkg/node_modules/dep/b/x.js",
      "pkg/node_modules/dep/index.js",
      "pkg/server.js",
    ]);
    unlinkSync(join(ws.path, "pkg/node_modules/dep/lib/to"));
    symlinkSync("../c", join(ws.path, "pkg/node_modules/dep/lib/to"));
    expect(Object.keys(await files(server))).toEqual([
      "pkg/node_modules/dep/c/x.js",
      "pkg/node_modules/dep/index.js",
      "pkg/server.js",
    ]);
  });

  test("what was found among files changed a moment before is not kept (their stamps may not show the next change)", async () => {
    write("fresh/server.mjs", "console.log(1);\n");
    const count = keptFiles().length;
    expect(Object.keys(await files({ command: "node", args: ["fresh/server.mjs"] }))).toEqual([
      "fresh/server.mjs",
    ]);
    expect(keptFiles().length).toBe(count);
  });

  test("a Python module planted nearer the script is seen", async () => {
    const server = { command: "python3", args: ["srv/server.py"], cwd: "py" };
    expect(Object.keys(await files(server))).toEqual(["py/helpers.py", "py/srv/server.py"]);
    write("py/srv/helpers.py", "x = 2\n");
    expect(Object.keys(await files(server))).toEqual([
      "py/helpers.py",
      "py/srv/helpers.py",
      "py/srv/server.py",
    ]);
  });

  test("a module planted where a tsconfig.json's baseUrl maps an import is seen (such answers are not kept)", async () => {
    const server = { command: "node", args: ["paths/server.ts"] };
    expect(Object.keys(await files(server))).toEqual(["paths/server.ts"]);
    write("paths/lib/later.ts", "export const x = 1;\n");
    expect(Object.keys(await files(server))).toEqual(["paths/lib/later.ts", "paths/server.ts"]);
  });
});
