// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${VAR} is the config syntax under test
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { loadConfig } from "../../src/config/index.js";
import { isResonError } from "../../src/core/errors.js";
import {
  approve,
  expandServer,
  MAX_TOOL_NAME_CHARS,
  type McpServerEntry,
  mcpServerEntries,
  mcpToolName,
  selectServers,
} from "../../src/mcp/index.js";

let home: string;
let ws: string;
beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), "reson-home-"));
  ws = mkdtempSync(join(tmpdir(), "reson-ws-"));
});
afterEach(() => {
  rmSync(home, { recursive: true, force: true });
  rmSync(ws, { recursive: true, force: true });
});

function thrown(run: () => unknown) {
  try {
    run();
  } catch (error) {
    if (isResonError(error)) return error;
    throw error;
  }
  throw new Error("expected a failure");
}

describe("${VAR} expansion", () => {
  test("fills variables and defaults in command, args, env, url and headers", () => {
    const env = { TOKEN: "t0k", DIR: "/srv" };
    expect(
      expandServer(
        "s",
        {
          command: "${DIR}/bin/server",
          args: ["--port", "${PORT:-8080}"],
          env: { API_TOKEN: "${TOKEN}" },
          url: "https://${HOST:-example.com}/mcp",
          headers: { Authorization: "Bearer ${TOKEN}" },
        },
        env,
      ),
    ).toEqual({
      command: "/srv/bin/server",
      args: ["--port", "8080"],
      env: { API_TOKEN: "t0k" },
      url: "https://example.com/mcp",
      headers: { Authorization: "Bearer t0k" },
    });
  });

  test("an unset variable without a default fails naming it and how to give one", () => {
    const error = thrown(() =>
      expandServer("github", { url: "https://x/${MISSING_HOST}", headers: { A: "${NOPE}" } }, {}),
    );
    expect(error.code).toBe("config_invalid");
    expect(error.message).toContain("MISSING_HOST, NOPE");
    expect(error.hint).toContain("${MISSING_HOST:-value}");
  });
});

describe("where servers come from", () => {
  test("a project's .mcp.json is read as Claude Code writes it, and its servers are project servers", async () => {
    mkdirSync(join(home), { recursive: true });
    writeFileSync(
      join(home, "config.json"),
      JSON.stringify({ mcp: { servers: { mine: { command: "my-server" } } } }),
    );
    writeFileSync(
      join(ws, ".mcp.json"),
      JSON.stringify({
        mcpServers: {
          fs: { command: "npx", args: ["-y", "@modelcontextprotocol/server-filesystem", "."], env: {} },
          remote: {
            type: "http",
            url: "https://mcp.example.com/mcp",
            headers: { Authorization: "Bearer ${TOKEN}" },
          },
          odd: { command: "x", oauth: { clientId: "abc" } },
        },
      }),
    );
    const loaded = await loadConfig({ workspace: ws, env: { RESON_HOME: home } });
    const warnings: string[] = [];
    const entries = await mcpServerEntries(loaded, ws, warnings);
    expect(entries.map((e) => [e.name, e.scope])).toEqual([
      ["mine", "user"],
      ["fs", "project"],
      ["remote", "project"],
      ["odd", "project"],
    ]);
    expect(entries.find((e) => e.name === "remote")?.config).toEqual({
      type: "http",
      url: "https://mcp.example.com/mcp",
      headers: { Authorization: "Bearer ${TOKEN}" },
    });
    expect(warnings.join("\n")).toContain('"oauth" is not used by reson');
  });

  test("a folder where .mcp.json would be (a running command's placeholder) means no project servers", async () => {
    mkdirSync(join(ws, ".mcp.json"));
    const loaded = await loadConfig({ workspace: ws, env: { RESON_HOME: home } });
    const warnings: string[] = [];
    expect(await mcpServerEntries(loaded, ws, warnings)).toEqual([]);
    expect(warnings).toEqual([]);
  });

  test("a project that redefines a user's server makes it a project server (it needs approval)", async () => {
    writeFileSync(
      join(home, "config.json"),
      JSON.stringify({ mcp: { servers: { gh: { command: "safe" } } } }),
    );
    mkdirSync(join(ws, ".reson"));
    writeFileSync(
      join(ws, ".reson", "config.json"),
      JSON.stringify({ mcp: { servers: { gh: { command: "evil" } } } }),
    );
    const entries = await mcpServerEntries(
      await loadConfig({ workspace: ws, env: { RESON_HOME: home } }),
      ws,
    );
    expect(entries).toEqual([
      expect.objectContaining({ name: "gh", scope: "project", config: { command: "evil" } }),
    ]);
  });
});

describe("approval of project servers", () => {
  const entry = {
    name: "fs",
    scope: "project" as const,
    source: ".mcp.json",
    config: { command: "fs-server" },
  };

  test("headless, an unapproved project server is refused with the flag that allows it", async () => {
    const selection = await selectServers([entry], { home, workspace: ws, allow: [], userAllowed: [] });
    expect(selection.start).toEqual([]);
    expect(selection.refused[0]?.reason).toContain("--allow-mcp fs");
  });

  test("--allow-mcp or the user's allowProjectServers starts it", async () => {
    for (const options of [
      { allow: ["fs"], userAllowed: [] },
      { allow: [], userAllowed: ["fs"] },
    ]) {
      const selection = await selectServers([entry], { home, workspace: ws, ...options });
      expect(selection.start.map((e) => e.name)).toEqual(["fs"]);
    }
  });

  test("an approval holds for the same definition only: a changed one asks again", async () => {
    const asked: string[] = [];
    const ask = async (e: McpServerEntry) => {
      asked.push(e.name);
      return true;
    };
    expect(
      (await selectServers([entry], { home, workspace: ws, allow: [], userAllowed: [], ask })).start,
    ).toHaveLength(1);
    expect(
      (await selectServers([entry], { home, workspace: ws, allow: [], userAllowed: [] })).start,
    ).toHaveLength(1);
    const changed = { ...entry, config: { command: "fs-server", args: ["--write"] } };
    const again = await selectServers([changed], { home, workspace: ws, allow: [], userAllowed: [] });
    expect(again.start).toEqual([]);
    expect(asked).toEqual(["fs"]);
  });

  test("an approval is per workspace", async () => {
    await approve(home, "/some/other/project", "fs", entry.config, { files: {} });
    const selection = await selectServers([entry], { home, workspace: ws, allow: [], userAllowed: [] });
    expect(selection.start).toEqual([]);
  });

  test("a required project server that is not approved fails with mcp_unavailable", async () => {
    const required = { ...entry, config: { command: "fs-server", required: true } };
    await expect(
      selectServers([required], { home, workspace: ws, allow: [], userAllowed: [] }),
    ).rejects.toMatchObject({
      code: "mcp_unavailable",
    });
  });
});

describe("tool names", () => {
  test("are mcp__server__tool with anything but letters, digits, _ and - replaced", () => {
    expect(mcpToolName("github", "create_issue")).toBe("mcp__github__create_issue");
    expect(mcpToolName("my.server", "get-thing.v2")).toBe("mcp__my_server__get-thing_v2");
  });

  test("longer than 64 characters, keep their start and end in a hash that tells them apart", () => {
    const a = mcpToolName("a-server-with-a-long-name", `${"x".repeat(60)}_one`);
    const b = mcpToolName("a-server-with-a-long-name", `${"x".repeat(60)}_two`);
    expect(a).toHaveLength(MAX_TOOL_NAME_CHARS);
    expect(a.startsWith("mcp__a-server-with-a-long-name__xxx")).toBe(true);
    expect(a).not.toBe(b);
    expect(a).toMatch(/^[A-Za-z0-9_-]+$/);
  });
});
