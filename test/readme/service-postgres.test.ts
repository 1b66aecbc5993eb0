// README "Service" on PostgreSQL: `reson serve --workers 0` and `reson worker` sharing a
// throw-away PostgreSQL, started from a user's shell as written (in the background, as in two
// terminals). Placeholders: the database URL is the test's database, 0.0.0.0 is 127.0.0.1,
// /etc/reson/token a token file of the user's own, and the port (7878) a free one.
//
// Harness variables: RESON_PROVIDER=openai-compatible, RESON_BASE_URL and RESON_MODEL point the
// worker's runs at the fake model server, beside cleanEnv's (test/support/cli.ts).
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, onTestFinished } from "vitest";
import { startTestPostgres } from "../store/postgres-server.js";
import { skipWithout } from "../support/requirements.js";
import { localModel } from "./readme-user.js";
import { freePort, scenario, useModel, useShell, useUser } from "./scenario.js";

describe.skipIf(await skipWithout("postgres", "README's service on PostgreSQL"))(
  "README's service on PostgreSQL",
  () => {
    scenario("export RESON_DATABASE_URL=postgres://reson@db/reson", async (block) => {
      const postgres = await startTestPostgres();
      onTestFinished(() => postgres.stop(), 60_000);
      const model = await useModel({ replies: [{ text: "Done on a worker." }] });
      const user = useUser(localModel(model));
      const token = "a-token-of-my-own-choosing-0123456789abcdef";
      const tokenFile = join(user.scratch, "token");
      writeFileSync(tokenFile, `${token}\n`, { mode: 0o600 });
      const port = await freePort();
      const shell = useShell(block, user)
        .replace("postgres://reson@db/reson", await postgres.createDatabase())
        .replace("0.0.0.0", "127.0.0.1")
        .replace("/etc/reson/token", tokenFile)
        .replace("reson serve", `reson serve --port ${port}`);

      await shell.run("export RESON_DATABASE_URL=");
      const api = await shell.background("reson serve --workers 0", /"url":"http:\/\/127\.0\.0\.1:\d+"/);
      const worker = await shell.background("reson worker --concurrency 4", /worker started/);
      shell.end();

      const base = `http://127.0.0.1:${port}`;
      const headers = { authorization: `Bearer ${token}`, "content-type": "application/json" };
      // A workspace made by the API (a new folder in ~/.reson/workspaces), then a run in it.
      const made = await fetch(`${base}/workspaces`, {
        method: "POST",
        headers,
        body: JSON.stringify({ name: "project" }),
      });
      expect(made.status, await made.clone().text()).toBe(201);
      const posted = await fetch(`${base}/runs`, {
        method: "POST",
        headers,
        body: JSON.stringify({ task: "say done", workspace: "project" }),
      });
      expect(posted.status, await posted.clone().text()).toBe(202);
      const { id } = (await posted.json()) as { id: string };
      let status = "queued";
      for (let tries = 0; tries < 300 && ["queued", "running"].includes(status); tries++) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        status = ((await (await fetch(`${base}/runs/${id}`, { headers })).json()) as { status: string })
          .status;
      }
      expect(status).toBe("completed");
      // The worker ran it; the API process only answered.
      expect(worker.log()).toContain(id);
      expect(api.log()).not.toContain("Done on a worker.");
      expect(model.requests).toHaveLength(1);
    });
  },
);
