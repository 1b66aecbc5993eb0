// The short smoke check that .ci/run also runs on the newest Node.js LTS line after a clean
// `npm ci` there: the command starts, one scripted run completes against the fake model
// server, and the store opens and keeps a write. On the suite's own Node it runs as well.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { openStore } from "../../src/store/index.js";
import { session } from "../store/fixtures.js";
import { cleanEnv, parseEvents, runCli } from "../support/cli.js";
import { fakeModelArgs, useCliFixture } from "../support/cli-fixture.js";

const version = JSON.parse(readFileSync(join(import.meta.dirname, "../../package.json"), "utf8")).version;

describe(`reson on Node.js ${process.version}`, () => {
  const f = useCliFixture();

  it("prints its version", async () => {
    const result = await runCli(["--version"]);
    expect(result).toMatchObject({ code: 0, stdout: `${version}\n` });
  });

  it("runs one scripted task against the fake model server and stores it", async () => {
    f.server.enqueue(
      { toolCalls: [{ name: "write_file", arguments: { path: "hello.txt", content: "hi\n" } }] },
      { text: "Wrote hello.txt." },
    );
    const result = await runCli(
      ["run", "--json", "--workspace", f.ws.path, ...fakeModelArgs(f.server), "write hello.txt"],
      { env: cleanEnv({ RESON_HOME: f.home.path }) },
    );
    expect(result.code).toBe(0);
    const end = parseEvents(result.stdout).find((event) => event.type === "run_end");
    expect(end).toMatchObject({ status: "completed", finalText: "Wrote hello.txt." });
    expect(readFileSync(join(f.ws.path, "hello.txt"), "utf8")).toBe("hi\n");
    expect(existsSync(join(f.home.path, "reson.db"))).toBe(true);
  });

  it("opens the store, writes a session and reads it back", async () => {
    const store = await openStore({ home: f.home.path });
    try {
      const record = session({ workspace: f.ws.path, title: "smoke" });
      await store.apply([{ op: "insertSession", session: record }]);
      expect((await store.sessions.get(record.id))?.title).toBe("smoke");
    } finally {
      await store.close();
    }
  });
});
