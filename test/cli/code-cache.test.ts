// The V8 code cache of a bundled command (src/cli/code-cache.ts) follows the longest run: a
// short `reson acp` session (initialize, then the editor closes) takes a thin cache, a later
// session with a prompt takes it again with the prompt's code, and a session like it after
// that leaves the file alone.
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { methods } from "@agentclientprotocol/sdk";
import { describe, expect, it } from "vitest";
import { acpEnv, startAcp } from "../support/acp-client.js";
import { useCliFixture } from "../support/cli-fixture.js";

describe("the code cache of reson acp", () => {
  const f = useCliFixture();

  it("is taken again by a later session that ran more code, then kept", async () => {
    const env = acpEnv(f, { XDG_CACHE_HOME: join(f.home.path, "xdg-cache") });
    const folder = join(f.home.path, "xdg-cache", "reson");
    const acpCache = () => {
      const name = readdirSync(folder).find((file) => file.endsWith("-acp.v8"));
      if (!name) throw new Error(`no acp cache in ${readdirSync(folder).join(", ")}`);
      const info = statSync(join(folder, name), { bigint: true });
      return { size: Number(info.size), changedAt: info.mtimeNs };
    };
    const session = async (prompt: boolean) => {
      const acp = startAcp({ env });
      await acp.initialize();
      if (prompt) {
        const { sessionId } = await acp.connection.agent.request(methods.agent.session.new, {
          cwd: f.ws.path,
          mcpServers: [],
        });
        f.server.enqueue({ text: "ready" });
        await acp.connection.agent.request(methods.agent.session.prompt, {
          sessionId,
          prompt: [{ type: "text", text: "say ready" }],
        });
      }
      expect(await acp.close()).toBe(0);
    };

    await session(false);
    const thin = acpCache();
    await session(true);
    const full = acpCache();
    expect(full.size).toBeGreaterThan(thin.size);
    await session(true);
    expect(acpCache()).toEqual(full);
  }, 60_000);
});
