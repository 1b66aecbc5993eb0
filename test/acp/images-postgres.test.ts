// Images stored with their turn on PostgreSQL (RESON_DATABASE_URL), as images.test.ts checks on
// SQLite: an image near the 5 MB limit goes to the model, survives a SIGKILL of `reson acp`,
// comes back byte for byte on session/load in a new process, and is in the next task's
// history. In CI a missing PostgreSQL fails (postgres.test.ts says so); locally it skips.
import { randomBytes } from "node:crypto";
import { methods } from "@agentclientprotocol/sdk";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { querySql, startTestPostgres, type TestPostgres } from "../store/postgres-server.js";
import { type AcpProcess, acpEnv, startAcp, updatesOf } from "../support/acp-client.js";
import { useCliFixture } from "../support/cli-fixture.js";
import { skipWithout } from "../support/requirements.js";

const skip = await skipWithout("postgres", "reson acp's image turns on PostgreSQL");

/** A PNG's signature and header chunk, then noise: 4.9 MB, under the 5 MB a prompt may carry. */
const LARGE_PNG = Buffer.concat([
  Buffer.from("89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c489", "hex"),
  randomBytes(4_900_000),
]).toString("base64");

describe.skipIf(skip)("reson acp on PostgreSQL: images", () => {
  const f = useCliFixture();
  let server: TestPostgres;
  const started: AcpProcess[] = [];
  beforeAll(async () => {
    server = await startTestPostgres();
  }, 60_000);
  afterAll(async () => {
    await server?.stop();
  }, 60_000);
  afterEach(async () => {
    for (const acp of started.splice(0)) await acp.close();
  });

  it("an image near the size limit is stored with its turn, replayed on session/load after SIGKILL, and kept in the next task's history", async () => {
    const databaseUrl = await server.createDatabase();
    const env = acpEnv(f, {
      RESON_DATABASE_URL: databaseUrl,
      RESON_PROVIDER: "anthropic",
      RESON_BASE_URL: f.server.anthropicBaseUrl,
      RESON_MODEL: "claude-sonnet-4-5",
      ANTHROPIC_API_KEY: "test-key",
    });
    const wireImage = { type: "image", source: { type: "base64", media_type: "image/png", data: LARGE_PNG } };
    const userParts = (body: unknown) =>
      ((body as { messages: { role: string; content: unknown }[] }).messages ?? [])
        .filter((m) => m.role === "user")
        .flatMap((m) => (Array.isArray(m.content) ? m.content : [m.content]));

    const first = startAcp({ env });
    started.push(first);
    expect((await first.initialize()).agentCapabilities?.promptCapabilities?.image).toBe(true);
    const { sessionId } = await first.connection.agent.request(methods.agent.session.new, {
      cwd: f.ws.path,
      mcpServers: [],
    });
    f.server.enqueue({ text: "Noise." });
    const answer = await first.connection.agent.request(methods.agent.session.prompt, {
      sessionId,
      prompt: [
        { type: "text", text: "What is in this picture?" },
        { type: "image", data: LARGE_PNG, mimeType: "image/png" },
      ],
    });
    expect(answer.stopReason).toBe("end_turn");
    expect(userParts(f.server.requests.at(-1)?.body)).toContainEqual(expect.objectContaining(wireImage));
    first.child.kill("SIGKILL");
    await first.exited;
    // The turn is in PostgreSQL's turns table, image and all (not in a SQLite file beside it).
    const [stored] = await querySql<{ holds: boolean }>(
      databaseUrl,
      `SELECT bool_or(strpos(content::text, '${LARGE_PNG.slice(-64)}') > 0) AS holds FROM turns WHERE session_id = '${sessionId}'`,
    );
    expect(stored?.holds).toBe(true);

    const second = startAcp({ env });
    started.push(second);
    await second.initialize();
    await second.connection.agent.request(methods.agent.session.load, {
      sessionId,
      cwd: f.ws.path,
      mcpServers: [],
    });
    const replayed = updatesOf(second.updates, "user_message_chunk").map((u) => u.content);
    expect(replayed).toHaveLength(2);
    expect(replayed[0]).toEqual({ type: "text", text: "What is in this picture?" });
    // Compared as a whole string: a mismatch in 6.5 MB of base64 would print nothing useful.
    expect(replayed[1]?.type === "image" && replayed[1].data === LARGE_PNG).toBe(true);
    expect(replayed[1]).toMatchObject({ type: "image", mimeType: "image/png" });

    f.server.enqueue({ text: "Still noise." });
    await second.connection.agent.request(methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: "text", text: "And its colour?" }],
    });
    const parts = userParts(f.server.requests.at(-1)?.body);
    expect(parts.some((part) => JSON.stringify(part) === JSON.stringify(wireImage))).toBe(true);
    expect(JSON.stringify(parts)).toContain("And its colour?");
  }, 120_000);
});
