// How a local server's launch is changed so that it runs nothing from the workspace's own
// packages (the end-to-end attack is test/security/injection/mcp-launch.test.ts).
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  bunxLocalCopy,
  type LaunchScope,
  launchOutsideWorkspace,
} from "../../src/mcp/launch-outside-workspace.js";
import { tempDir } from "../support/cli.js";

const EMPTY = "/home/u/.reson/mcp/no-packages";
const launch = (
  command: string,
  args: string[],
  env: Record<string, string> = {},
  scope: LaunchScope = "user",
) => launchOutsideWorkspace({ command, args, env }, EMPTY, scope);

describe("launchOutsideWorkspace", () => {
  it("gives npx and npm exec an empty prefix, so the workspace's node_modules is not looked in", () => {
    expect(launch("npx", ["-y", "@scope/server", "."]).args).toEqual([
      "--prefix",
      EMPTY,
      "-y",
      "@scope/server",
      ".",
    ]);
    expect(launch("/usr/local/bin/npx", ["pkg"]).args).toEqual(["--prefix", EMPTY, "pkg"]);
    expect(launch("npm", ["exec", "--", "pkg"]).args).toEqual(["exec", "--prefix", EMPTY, "--", "pkg"]);
    expect(launch("npm", ["x", "pkg"]).args).toEqual(["x", "--prefix", EMPTY, "pkg"]);
  });

  it("leaves a prefix the definition chose, and npm's other commands", () => {
    expect(launch("npx", ["--prefix=/opt/tools", "pkg"]).args).toEqual(["--prefix=/opt/tools", "pkg"]);
    expect(launch("npx", ["--prefix", "/opt/tools", "pkg"]).args).toEqual(["--prefix", "/opt/tools", "pkg"]);
    expect(launch("npm", ["run", "mcp"]).args).toEqual(["run", "mcp"]);
  });

  it("keeps python from importing the current folder, unless the definition says otherwise", () => {
    expect(launch("python3", ["-m", "server"]).env).toEqual({ PYTHONSAFEPATH: "1" });
    expect(launch("/usr/bin/python3.12", ["-m", "server"], { A: "b" }).env).toEqual({
      A: "b",
      PYTHONSAFEPATH: "1",
    });
    expect(launch("python", ["-m", "server"], { PYTHONSAFEPATH: "" }).env).toEqual({ PYTHONSAFEPATH: "" });
  });

  it("changes nothing else", () => {
    const node = { command: "node", args: ["server.js"], env: {} };
    expect(launchOutsideWorkspace(node, EMPTY, "user")).toBe(node);
  });

  it("keeps the user's own uv run from the workspace's project, .venv and uv settings", () => {
    const fastmcp = ["run", "--with", "fastmcp", "fastmcp", "run", "/home/u/server.py"];
    expect(launch("uv", fastmcp).args).toEqual(["run", "--project", EMPTY, ...fastmcp.slice(1)]);
    // The definition's own choice of project or folder stands, and so does a project's server.
    expect(launch("uv", ["--directory", "/home/u/weather", "run", "weather.py"]).args).toEqual([
      "--directory",
      "/home/u/weather",
      "run",
      "weather.py",
    ]);
    expect(launch("uv", ["run", "--project=.", "server"]).args).toEqual(["run", "--project=.", "server"]);
    expect(launch("uv", ["run", "server"], { UV_PROJECT: "/srv" }).args).toEqual(["run", "server"]);
    expect(launch("uv", ["run", "server"], {}, "project").args).toEqual(["run", "server"]);
    // uv's tool commands read no settings from the folder they run in: nothing to change.
    expect(launch("uvx", ["mcp-server-fetch"]).args).toEqual(["mcp-server-fetch"]);
    expect(launch("uv", ["tool", "run", "mcp-server-fetch"]).args).toEqual([
      "tool",
      "run",
      "mcp-server-fetch",
    ]);
  });
});

describe("bunxLocalCopy", () => {
  const bunx = (args: string[], command = "bunx") => ({ command, args, env: {} });

  it("finds the copy of the package bunx would run instead, in the workspace's node_modules", () => {
    const ws = tempDir();
    try {
      expect(bunxLocalCopy(bunx(["-y", "@scope/server@1.2.0", "."]), ws.path, ws.path)).toBeUndefined();
      mkdirSync(join(ws.path, "node_modules", "@scope", "server"), { recursive: true });
      expect(bunxLocalCopy(bunx(["@scope/server@1.2.0", "."]), ws.path, ws.path)).toBe(
        join("node_modules", "@scope", "server"),
      );
      mkdirSync(join(ws.path, "node_modules", ".bin"));
      writeFileSync(join(ws.path, "node_modules", ".bin", "tool"), "");
      expect(bunxLocalCopy(bunx(["-p", "@scope/server@2", "srv"]), ws.path, ws.path)).toBe(
        join("node_modules", "@scope", "server"),
      );
      expect(bunxLocalCopy(bunx(["x", "--bun", "-p", "other", "tool"], "bun"), ws.path, ws.path)).toBe(
        join("node_modules", ".bin", "tool"),
      );
      // Found from a server folder below the root too; a definition that moves bunx elsewhere is its own.
      mkdirSync(join(ws.path, "pkg"));
      expect(bunxLocalCopy(bunx(["tool"]), join(ws.path, "pkg"), ws.path)).toBe(
        join("node_modules", ".bin", "tool"),
      );
      expect(bunxLocalCopy(bunx(["--cwd", "/opt", "tool"]), ws.path, ws.path)).toBeUndefined();
      expect(bunxLocalCopy({ command: "npx", args: ["tool"], env: {} }, ws.path, ws.path)).toBeUndefined();
    } finally {
      ws.remove();
    }
  });
});
