// Live text of runs a `reson worker` executes, streamed by a `reson serve --workers 0` on the
// same PostgreSQL database: the text of the step in flight reaches serve's SSE clients as it
// comes (never stored, frames without an id), before the step's end, and a client that joins
// mid-step first gets the step's text so far.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { startTestPostgres, type TestPostgres } from "../store/postgres-server.js";
import { cleanEnv, type TempDir, tempDir } from "../support/cli.js";
import {
  type FakeModelServer,
  type RecordedRequest,
  startFakeModelServer,
} from "../support/fake-model-server.js";
import { skipWithout } from "../support/requirements.js";
import { killAllReson, startReson } from "../support/service-process.js";
import { readSse, type SseClientFrame } from "../support/sse-client.js";
import { waitingCommand } from "../support/waiting-command.js";

/** 60 words, streamed one at a time with a pause between: a step that takes a while to say. */
const ANSWER = Array.from({ length: 60 }, (_, i) => `w${String(i).padStart(2, "0")}`).join(" ");

/** First a command that waits for `go` (so clients can be following first), then the answer. */
function respond(request: RecordedRequest) {
  const first = waitingCommand(request);
  return "toolCalls" in first ? first : { text: ANSWER, chunkDelayMs: 80 };
}

const deltas = (frames: SseClientFrame[]) =>
  frames
    .filter((frame) => frame.event === "text_delta")
    .map((frame) => JSON.parse(frame.data).delta as string);

describe.skipIf(await skipWithout("postgres", "live text of worker runs"))("live text of worker runs", () => {
  let pg: TestPostgres;
  let model: FakeModelServer;
  let ws: TempDir;

  beforeAll(async () => {
    pg = await startTestPostgres();
  }, 120_000);
  afterAll(async () => {
    await pg?.stop();
  });
  afterEach(async () => {
    await killAllReson();
    await model?.close();
    ws?.remove();
  });

  it("serve without workers streams a worker's text as it comes, before the step ends, and gives a client joining mid-step the text so far", async () => {
    const url = await pg.createDatabase();
    model = await startFakeModelServer({ respond });
    ws = tempDir();
    const env = cleanEnv({ RESON_HOME: ws.home, RESON_DATABASE_URL: url });
    const serve = startReson(
      ["serve", "--port", "0", "--workers", "0", "--log-format", "json", "--workspace-root", ws.path],
      { env, cwd: ws.path },
    );
    const [, base] = await serve.waitFor(/"url":"(http:\/\/127\.0\.0\.1:\d+)"/);
    const headers = { authorization: `Bearer ${readFileSync(join(ws.home, "serve-token"), "utf8").trim()}` };
    const posted = await fetch(`${base}/runs`, {
      method: "POST",
      headers: { ...headers, "content-type": "application/json" },
      body: JSON.stringify({
        task: "say a lot",
        workspace: ws.path,
        provider: "openai-compatible",
        baseUrl: model.openaiBaseUrl,
        model: "fake-model",
        sandbox: "off",
        allow: ["execute_command"],
      }),
    });
    expect(posted.status).toBe(202);
    const { id } = (await posted.json()) as { id: string };
    const worker = startReson(["worker", "--log-format", "json"], { env, cwd: ws.path });

    // The first client follows from the start; once its step 1 command runs, the text step may
    // begin, and after its third word a second client joins.
    let late: Promise<SseClientFrame[]> | undefined;
    let seenDeltas = 0;
    const events = `${base}/runs/${id}/events`;
    const early = await readSse(events, headers, {
      timeoutMs: 60_000,
      onFrame: (frame) => {
        if (frame.event === "tool_call") writeFileSync(join(ws.path, "go"), "");
        if (!late && deltas([frame]).length > 0 && ++seenDeltas === 3)
          late = readSse(events, headers, { timeoutMs: 60_000 });
      },
    });
    expect(late).toBeDefined();
    const joined = await late!;

    // Live, before the step's end, without an id; all of it, once.
    const kinds = early.map((frame) => frame.event);
    expect(kinds.indexOf("text_delta")).toBeGreaterThan(-1);
    expect(kinds.indexOf("text_delta")).toBeLessThan(kinds.lastIndexOf("step_end"));
    expect(
      early.filter((frame) => frame.event === "text_delta").every((frame) => frame.id === undefined),
    ).toBe(true);
    expect(deltas(early).join("")).toBe(ANSWER);
    expect(kinds.at(-1)).toBe("run_end");
    // The late client's first delta is the text so far (three words at least), then the rest.
    expect(deltas(joined)[0]).toMatch(/^w00 w01 w02 /);
    expect(deltas(joined).join("")).toBe(ANSWER);
    expect(joined.at(-1)?.event).toBe("run_end");

    worker.kill("SIGTERM");
    serve.kill("SIGTERM");
    expect((await worker.exited()).code).toBe(0);
    expect((await serve.exited()).code).toBe(0);
  }, 120_000);
});
