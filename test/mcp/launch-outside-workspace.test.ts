// How a local server's launch is changed so that it runs nothing from the workspace's own
// packages (the end-to-end attack is test/security/injection/mcp-launch.test.ts).
import { describe, expect, it } from "vitest";
import { launchOutsideWorkspace } from "../../src/mcp/launch-outside-workspace.js";

const EMPTY = "/home/u/.reson/mcp/no-packages";
const launch = (command: string, args: string[], env: Record<string, string> = {}) =>
  launchOutsideWorkspace({ command, args, env }, EMPTY);

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
    expect(launchOutsideWorkspace(node, EMPTY)).toBe(node);
  });
});
