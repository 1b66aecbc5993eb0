// The live text relay of the store on a real PostgreSQL: what one process relays of a run's step
// in flight reaches every other process that follows live text, whole and in order, however
// long (NOTIFY takes under 8,000 bytes a payload) and whatever it holds; never its own sender.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type LiveTextDelta, openStore, type Store } from "../../src/store/index.js";
import { skipWithout } from "../support/requirements.js";
import { startTestPostgres, type TestPostgres } from "./postgres-server.js";

/** Resolves once `check` holds; fails after 10 s of asking. */
async function until(check: () => boolean): Promise<void> {
  for (let tries = 0; tries < 200 && !check(); tries++) await new Promise((r) => setTimeout(r, 50));
  if (!check()) throw new Error("the awaited deltas never came");
}

describe.skipIf(await skipWithout("postgres", "live text relay"))(
  "live text relayed through PostgreSQL",
  () => {
    let server: TestPostgres;
    let home: string;
    const stores: Store[] = [];

    beforeAll(async () => {
      server = await startTestPostgres();
      home = await mkdtemp(join(tmpdir(), "reson-live-"));
    }, 120_000);
    afterAll(async () => {
      await server?.stop();
      await rm(home, { recursive: true, force: true });
    });
    afterEach(async () => {
      for (const store of stores.splice(0)) await store.close();
    });

    it("reaches the other stores whole and in order, a long text cut to NOTIFY's size, and never the sender", async () => {
      const databaseUrl = await server.createDatabase();
      const open = async () => {
        const store = await openStore({ home, databaseUrl });
        stores.push(store);
        return store;
      };
      const [sender, follower, other] = [await open(), await open(), await open()];
      const heard: LiveTextDelta[] = [];
      const echoed: LiveTextDelta[] = [];
      await follower.events.subscribeLive((delta) => heard.push(delta));
      await sender.events.subscribeLive((delta) => echoed.push(delta));

      // 40,000 characters of what models write: accents, CJK, emoji, quotes, control characters.
      const long = 'é中文😀 "quoted" \\ \n\t\u0000\u001f '.repeat(2_000);
      const relayed: LiveTextDelta[] = [
        { traceId: "run-a", step: 1, stepStart: true, text: "", thinking: "" },
        { traceId: "run-a", step: 1, text: "Hello", thinking: "hmm" },
        { traceId: "run-a", step: 1, text: long, thinking: long },
        { traceId: "run-a", step: 1, text: " end", thinking: "", runEnd: true },
      ];
      for (const delta of relayed) await sender.events.relayLive(delta);
      await until(() => heard.some((delta) => delta.runEnd));

      expect(heard.length).toBeGreaterThan(relayed.length);
      expect(heard.every((delta) => delta.traceId === "run-a" && delta.step === 1)).toBe(true);
      expect(heard[0]).toMatchObject({ stepStart: true });
      expect(heard.filter((delta) => delta.stepStart)).toHaveLength(1);
      expect(heard.findIndex((delta) => delta.runEnd)).toBe(heard.length - 1);
      expect(heard.map((delta) => delta.text).join("")).toBe(`Hello${long} end`);
      expect(heard.map((delta) => delta.thinking).join("")).toBe(`hmm${long}`);

      // A marker from a third store comes after all of the sender's deltas: the sender heard none.
      await other.events.relayLive({ traceId: "marker", step: 0, text: "", thinking: "" });
      await until(() => echoed.some((delta) => delta.traceId === "marker"));
      expect(echoed).toEqual([{ traceId: "marker", step: 0, text: "", thinking: "" }]);
    }, 60_000);
  },
);
