// URL-scoped tools: a tool with urlPatterns is offered to the model only while the run's
// current URL (set by web_fetch) matches one of them, and the URL survives in the run's state.
import { createServer, type Server } from "node:http";
import { Type } from "typebox";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createAgent, SecretVault, type ToolDefinition } from "../../src/index.js";
import { cleanEnv, type TempDir, tempDir } from "../support/cli.js";
import { type FakeModelServer, startFakeModelServer } from "../support/fake-model-server.js";

function toolNames(request: { body: unknown }): string[] {
  const body = request.body as { tools?: Array<{ function: { name: string } }> };
  return (body.tools ?? []).map((tool) => tool.function.name);
}

describe("URL-scoped tools", () => {
  let server: FakeModelServer;
  let site: Server;
  let port: number;
  let ws: TempDir;
  beforeEach(async () => {
    server = await startFakeModelServer();
    ws = tempDir();
    site = createServer((_req, res) => res.end("<html>a page</html>"));
    await new Promise<void>((resolve) => site.listen(0, "127.0.0.1", resolve));
    port = (site.address() as { port: number }).port;
  });
  afterEach(async () => {
    await server.close();
    await new Promise<void>((resolve) => site.close(() => resolve()));
    ws.remove();
  });

  it("offers a tool only while the current URL matches its patterns", async () => {
    const seen: string[] = [];
    const pageTool: ToolDefinition = {
      name: "page_helper",
      description: "Works on the local test site only; it echoes the run's current URL back.",
      parameters: Type.Object({}),
      readOnly: true,
      urlPatterns: [`http://127.0.0.1:${port}`],
      async execute(_args, ctx) {
        seen.push(ctx.url ?? "(none)");
        return { content: `at ${ctx.url}` };
      },
    };
    const elsewhere: ToolDefinition = {
      ...pageTool,
      name: "other_site_helper",
      urlPatterns: ["*.example.com"],
    };
    server.enqueue(
      { toolCalls: [{ name: "web_fetch", arguments: { url: `http://127.0.0.1:${port}/docs?q=1` } }] },
      { toolCalls: [{ name: "page_helper", arguments: {} }] },
      { text: "done" },
    );
    const agent = await createAgent({
      workspace: ws.path,
      provider: "openai-compatible",
      baseUrl: server.openaiBaseUrl,
      model: "fake-model",
      env: cleanEnv({ RESON_HOME: ws.home }),
      tools: [pageTool, elsewhere],
      secrets: SecretVault.empty(),
      // The test site is on loopback, which web_fetch reaches only when allowed.
      config: { web: { allowPrivateHosts: ["127.0.0.1"] } },
    });
    const result = await agent.run("use the page tool");
    await agent.close();
    expect(result.status).toBe("completed");
    const [first, second, third] = server.requests.map(toolNames);
    expect(first).toContain("web_fetch");
    expect(first).not.toContain("page_helper");
    expect(second).toContain("page_helper");
    expect(second).not.toContain("other_site_helper");
    expect(third).toEqual(second);
    // The tool saw the URL without its query; the model is told where it is.
    expect(seen).toEqual([`http://127.0.0.1:${port}/docs`]);
    expect(JSON.stringify(server.requests[1]!.body)).toContain(`Current URL: http://127.0.0.1:${port}/docs`);
  });
});
