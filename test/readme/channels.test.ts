// README "Channels": the config example as written in $RESON_HOME/config.json is what
// `reson channel list` shows, and the pairing commands run as written against a pending code.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect } from "vitest";
import { openStore } from "../../src/store/index.js";
import { reson, scenario, useShell, useUser } from "./scenario.js";

describe("README: Channels", () => {
  scenario('"channels": {', async (block) => {
    const user = useUser();
    mkdirSync(join(user.home, ".reson"), { recursive: true });
    writeFileSync(join(user.home, ".reson/config.json"), block.body);
    const listed = await reson(user, ["channel", "list", "--json"]);
    expect(listed.code, listed.stderr).toBe(0);
    expect(JSON.parse(listed.stdout).channels).toEqual([
      expect.objectContaining({ name: "telegram", platform: "telegram", workspace: "notes" }),
      expect.objectContaining({ name: "slack", platform: "slack", workspace: "notes" }),
      expect.objectContaining({ name: "webhook:ci", platform: "webhook", workspace: "notes" }),
    ]);
  });

  scenario("reson channel pair list", async (block) => {
    const user = useUser();
    const store = await openStore({ home: join(user.home, ".reson") });
    const now = Date.now();
    await store.channels.putPairing({
      channel: "telegram",
      senderId: "555",
      senderName: "Eve",
      code: "K7QX2M9P",
      status: "pending",
      role: "allowed",
      createdAt: now,
      expiresAt: now + 3_600_000,
      approvedAt: null,
    });
    await store.close();
    const shell = useShell(block, user);
    expect((await shell.run("reson channel pair list")).stdout).toContain("code K7QX2M9P");
    expect((await shell.run("reson channel pair approve telegram K7QX2M9P")).stdout).toContain(
      "approved 555 (Eve) on telegram as allowed",
    );
    expect((await shell.run("reson channel status")).stdout).toContain("No channels are configured");
  });
});
