// GET /prompts/events over HTTP against a real `reson serve` on the fake model: the list of what
// waits for a person at once, a new list when an approval appears and when it is answered, and
// no stream for a client without the token or the cookie.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startViewerServe, type ViewerServe } from "../support/viewer-run.js";
import { openStream, parseFrames, send } from "./client.js";

type Prompts = { prompts: Array<{ runId: string; kind: string; sessionId: string | null }> };

function lists(text: string): Prompts[] {
  return parseFrames(text)
    .filter((frame) => frame.event === "prompts")
    .map((frame) => JSON.parse(frame.data!) as Prompts);
}

describe("GET /prompts/events", () => {
  let serve: ViewerServe;
  beforeAll(async () => {
    serve = await startViewerServe();
  }, 60_000);
  afterAll(async () => {
    await serve?.close();
  });

  it("is closed to a client without the token or the SSE cookie", async () => {
    const reply = await send(serve.url, "/prompts/events");
    expect(reply.status).toBe(401);
    const wrong = await send(serve.url, "/prompts/events", {
      headers: { authorization: "Bearer not-the-token-0123456789abcdefghijklmnop" },
    });
    expect(wrong.status).toBe(401);
  });

  it("sends what waits at once, then a new list when an approval appears and when it is answered", async () => {
    const stream = await openStream(serve.url, "/prompts/events", { authorization: `Bearer ${serve.token}` });
    try {
      expect(stream.response.statusCode).toBe(200);
      expect(stream.response.headers["content-type"]).toContain("text/event-stream");
      await stream.waitFor((text) => lists(text).length >= 1);
      expect(lists(stream.text())[0]).toEqual({ prompts: [] });

      const runId = await serve.startRun("write notes");
      await stream.waitFor((text) => lists(text).some((list) => list.prompts.length === 1));
      const { sessionId } = await serve.api<{ sessionId: string }>("GET", `/runs/${runId}`);
      expect(lists(stream.text()).at(-1)).toMatchObject({
        prompts: [{ runId, kind: "permission", sessionId }],
      });

      await serve.api("POST", `/runs/${runId}/approvals/write_notes`, { decision: "deny" });
      await stream.waitFor((text) => lists(text).at(-1)?.prompts.length === 0);
      // One list per change: empty, the approval, empty again.
      expect(lists(stream.text()).map((list) => list.prompts.length)).toEqual([0, 1, 0]);
      await serve.waitForRun(runId);
    } finally {
      stream.destroy();
    }
  }, 120_000);
});
