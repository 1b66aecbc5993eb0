// README "Browser": the config example written to $RESON_HOME/config.json, and runs whose model
// browses a page served on 127.0.0.1: the host the example allows opens, another loopback name
// (localhost, not in allowPrivateHosts) is refused.
//
// Harness variables: RESON_PROVIDER=openai-compatible, RESON_BASE_URL and RESON_MODEL point at
// the fake model server, beside cleanEnv's (test/support/cli.ts).
import { mkdirSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { describe, expect, onTestFinished } from "vitest";
import { parseEvents } from "../support/cli.js";
import { skipWithout } from "../support/requirements.js";
import { localModel } from "./readme-user.js";
import { reson, scenario, useModel, useUser } from "./scenario.js";

describe.skipIf(await skipWithout("chromium", "README: Browser"))("README: Browser", () => {
  scenario(
    '{ "web": { "allowPrivateHosts": ["127.0.0.1"] }, "browser": { "headless": true } }',
    async (block) => {
      const page = createServer((_req, res) =>
        res
          .writeHead(200, { "content-type": "text/html" })
          .end("<title>Corner shop</title><h1>Prices</h1><p>Tea: 3 EUR</p>"),
      );
      await new Promise<void>((resolve) => page.listen(0, "127.0.0.1", resolve));
      onTestFinished(() => void page.close());
      const port = (page.address() as AddressInfo).port;
      const navigate = (host: string) => ({
        respond: (request: { body: unknown }) =>
          JSON.stringify(request.body).includes('"role":"tool"')
            ? { text: "Looked." }
            : { toolCalls: [{ name: "browser_navigate", arguments: { url: `http://${host}:${port}/` } }] },
      });
      const model = await useModel(navigate("127.0.0.1"));
      const user = useUser(localModel(model));
      mkdirSync(join(user.home, ".reson"));
      writeFileSync(join(user.home, ".reson/config.json"), block.body);

      const run = async (host: string) => {
        model.setResponder(navigate(host).respond);
        const result = await reson(user, [
          "run",
          "--json",
          "--allow",
          `browser(domain:${host})`,
          "read the prices",
        ]);
        expect(result.code, result.stderr).toBe(0);
        return parseEvents(result.stdout).find(
          (e) => e.type === "tool_result" && e.name === "browser_navigate",
        );
      };
      expect(await run("127.0.0.1")).toMatchObject({
        ok: true,
        content: expect.stringContaining("Corner shop"),
      });
      const refused = await run("localhost");
      expect(refused).toMatchObject({ ok: false });
      expect(JSON.stringify(refused)).toContain("allowPrivateHosts");
    },
  );
});
