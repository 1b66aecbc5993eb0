// The kept pages of ended runs' events: bounded in entries and characters, the least recently
// used page leaves first, a page is read again once its run's last seq moves (a resume), and a
// page larger than the whole bound is sent but never kept. (Only ended runs reach this cache:
// event-routes.ts asks it for runs whose status is final.)
import { describe, expect, it } from "vitest";
import { EndedRunEvents } from "../../src/server/ended-run-events.js";

/** A reader that counts its reads, returning `text`. */
function reader(text: string) {
  const reads = { count: 0 };
  return {
    reads,
    read: async () => {
      reads.count++;
      return text;
    },
  };
}

describe("EndedRunEvents", () => {
  it("reads a page once while its last seq stays, and again when it moves", async () => {
    const cache = new EndedRunEvents();
    const r = reader("[1,2]");
    expect(await cache.page("run1", 0, 100, 2, r.read)).toBe("[1,2]");
    expect(await cache.page("run1", 0, 100, 2, r.read)).toBe("[1,2]");
    expect(r.reads.count).toBe(1);
    const resumed = reader("[1,2,3]");
    expect(await cache.page("run1", 0, 100, 3, resumed.read)).toBe("[1,2,3]");
    expect(resumed.reads.count).toBe(1);
    expect(cache.size).toBe(1);
    // Another window of the same run is another page.
    await cache.page("run1", 2, 100, 3, reader("[3]").read);
    expect(cache.size).toBe(2);
  });

  it("keeps at most maxEntries pages, the least recently used leaving first", async () => {
    const cache = new EndedRunEvents({ maxEntries: 2 });
    const a = reader("a");
    const b = reader("b");
    await cache.page("a", 0, 10, 1, a.read);
    await cache.page("b", 0, 10, 1, b.read);
    await cache.page("a", 0, 10, 1, a.read); // a is now the most recent
    await cache.page("c", 0, 10, 1, reader("c").read); // b leaves
    expect(cache.size).toBe(2);
    await cache.page("a", 0, 10, 1, a.read);
    expect(a.reads.count).toBe(1);
    await cache.page("b", 0, 10, 1, b.read);
    expect(b.reads.count).toBe(2);
  });

  it("keeps at most maxChars characters, evicting the oldest, and never keeps a page past the bound", async () => {
    const cache = new EndedRunEvents({ maxChars: 10 });
    const a = reader("aaaa");
    const b = reader("bbbb");
    await cache.page("a", 0, 10, 1, a.read);
    await cache.page("b", 0, 10, 1, b.read);
    expect(cache.size).toBe(2);
    await cache.page("c", 0, 10, 1, reader("cccc").read); // 12 chars: a leaves
    expect(cache.size).toBe(2);
    await cache.page("b", 0, 10, 1, b.read);
    expect(b.reads.count).toBe(1);
    await cache.page("a", 0, 10, 1, a.read);
    expect(a.reads.count).toBe(2);

    const huge = reader("x".repeat(11));
    expect(await cache.page("huge", 0, 10, 1, huge.read)).toBe("x".repeat(11));
    await cache.page("huge", 0, 10, 1, huge.read);
    expect(huge.reads.count).toBe(2);
    expect(cache.size).toBe(2);
  });
});
