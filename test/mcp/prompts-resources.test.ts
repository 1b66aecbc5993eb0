import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { McpServers, promptArguments } from "../../src/mcp/index.js";
import { ToolRegistry } from "../../src/tools/index.js";
import { Workspace } from "../../src/workspace/index.js";
import { makeTempLayout } from "../workspace/temp-dirs.js";
import { everythingStdio } from "./servers.js";

let servers: McpServers;
const never = () => new AbortController().signal;

beforeAll(async () => {
  servers = await McpServers.start(
    [{ name: "everything", scope: "user", source: "test", config: everythingStdio() }],
    {
      env: {},
      cwd: process.cwd(),
      signal: never(),
    },
  );
}, 60_000);
afterAll(() => servers.close());

describe("MCP prompts as slash commands", () => {
  test("each prompt is named mcp__server__prompt, with its arguments", async () => {
    const commands = await servers.prompts(never());
    expect(commands.map((c) => c.name)).toContain("mcp__everything__args-prompt");
  });

  test("arguments fill in order or by name; a missing required one says how to give it", () => {
    const prompt = {
      name: "p",
      arguments: [
        { name: "city", required: true },
        { name: "state", required: false },
      ],
    };
    expect(promptArguments(prompt, "Lyon")).toEqual({ city: "Lyon" });
    expect(promptArguments(prompt, "state=Rhone Lyon")).toEqual({ city: "Lyon", state: "Rhone" });
    expect(promptArguments(prompt, "New York NY")).toEqual({ city: "New", state: "York NY" });
    expect(() => promptArguments(prompt, "")).toThrow(/needs city/);
  });

  test("a prompt command becomes the text of the task", async () => {
    const task = await servers.promptTask("mcp__everything__args-prompt", "city=Lyon", never());
    expect(task).toContain("Lyon");
  });
});

describe("read_resource", () => {
  test("lists servers' resources in its description and reads one by URI", async () => {
    const tool = servers.resourceTool();
    expect(tool?.description).toContain("demo://resource/static/document/architecture.md");
    const registry = new ToolRegistry();
    if (tool) registry.register(tool);
    const layout = await makeTempLayout();
    const result = await registry.execute(
      {
        id: "c1",
        name: "read_resource",
        arguments: { server: "everything", uri: "demo://resource/static/document/architecture.md" },
      },
      { workspace: await Workspace.open(layout.root), signal: never(), runId: "r", toolCallId: "c1" },
    );
    expect(result.ok).toBe(true);
    expect(result.content.length).toBeGreaterThan(100);
    const unknown = await registry.execute(
      { id: "c2", name: "read_resource", arguments: { server: "nope", uri: "x" } },
      { workspace: await Workspace.open(layout.root), signal: never(), runId: "r", toolCallId: "c2" },
    );
    expect(unknown.error?.hint).toContain("everything");
  });
});
