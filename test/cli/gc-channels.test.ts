// `reson gc` as a process on a database a busy bot left: it says how many settled chat messages
// it removes, removes those settled more than a day and the cutoff ago, and keeps the rest.
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ulid } from "../../src/core/ids.js";
import { CHANNEL_DEDUPE_WINDOW_MS, type InboundMessage, openStore } from "../../src/store/index.js";
import { cleanEnv, runCli, type TempDir, tempDir } from "../support/cli.js";

const message: InboundMessage = {
  text: "hello",
  envelope: { receivedAt: 1_700_000_000_000, channel: "telegram", chatType: "direct", chatId: "42" },
  target: { chatId: "42" },
};

describe("reson gc and chat messages", () => {
  let dir: TempDir;
  beforeEach(() => {
    dir = tempDir();
  });
  afterEach(() => dir.remove());
  const cli = (args: string[]) => runCli(args, { cwd: dir.path, env: cleanEnv({ RESON_HOME: dir.home }) });

  it("removes the settled messages older than the cutoff and a day, says how many, and keeps the rest", async () => {
    const store = await openStore({ home: dir.home });
    const receive = async (dedupeKey: string) =>
      (await store.channels.receive({ id: ulid(), channel: "telegram", dedupeKey, chatKey: "42", message }))
        .record;
    const answered = await receive("100");
    await store.channels.transition(answered.id, "received", "reply", { reply: "hi" });
    await store.channels.transition(answered.id, "reply", "answered");
    const ignored = await receive("101");
    await store.channels.transition(ignored.id, "received", "ignored", { note: "not_mentioned" });
    const waiting = await receive("102");
    await store.channels.transition(waiting.id, "received", "reply", { reply: "not sent yet" });
    const recent = await receive("103");
    await store.channels.transition(recent.id, "received", "ignored", { note: "edit" });
    await store.close();
    // The first three came and were settled (or not) three days ago.
    const threeDaysAgo = Date.now() - 3 * CHANNEL_DEDUPE_WINDOW_MS;
    const db = new Database(join(dir.home, "reson.db"));
    db.prepare("UPDATE channel_inbound SET created_at = ?, updated_at = ? WHERE id IN (?, ?, ?)").run(
      threeDaysAgo,
      threeDaysAgo,
      answered.id,
      ignored.id,
      waiting.id,
    );
    db.close();

    const dry = await cli(["gc", "--older-than", "1h", "--dry-run"]);
    expect(dry.code).toBe(0);
    expect(dry.stdout).toMatch(
      /^would remove 0 runs \(0 steps, 0 checkpoints, 0 artifacts\), 0 sessions, 0 turns and 2 channel messages older than 1h/,
    );
    const removed = await cli(["gc", "--older-than", "1h", "--yes"]);
    expect(removed.code).toBe(0);
    expect(removed.stdout).toMatch(/^removed 0 runs .*, 0 turns and 2 channel messages older than 1h/);
    // The recent one was settled seconds ago: a cutoff of now still keeps it a day, for redeliveries.
    const again = await cli(["gc", "--older-than", "0s", "--yes"]);
    expect(again.stdout).toContain("Nothing to remove");

    const after = await openStore({ home: dir.home });
    const left = (await after.channels.listInbound("telegram", 10)).map((r) => r.id).sort();
    await after.close();
    expect(left).toEqual([waiting.id, recent.id].sort());
  });
});
