// The workspace registry's contract, the same on every backend: names and folders registered
// once, one default at a time, renames, uses and removal.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ulid } from "../../src/core/ids.js";
import type { Store, WorkspaceRecord } from "../../src/store/index.js";
import { rejection, type StoreTarget } from "./contract.js";

function workspace(name: string, more: Partial<WorkspaceRecord> = {}): WorkspaceRecord {
  return {
    id: `ws_${ulid()}`,
    name,
    path: `/srv/projects/${name}`,
    template: null,
    settings: {},
    createdByReson: false,
    isDefault: false,
    createdAt: 1_700_000_000_000,
    lastUsedAt: null,
    ...more,
  };
}

export function workspaceContract(fresh: () => Promise<StoreTarget>): void {
  let target: StoreTarget;
  let store: Store;

  beforeEach(async () => {
    target = await fresh();
    store = await target.open();
  });
  afterEach(async () => {
    await store.close();
    await target.cleanup();
  });

  describe("workspaces", () => {
    it("a created workspace is found by id, name and path, with its template and settings", async () => {
      const notes = workspace("notes", {
        template: "notes",
        settings: { model: "m1" },
        createdByReson: true,
      });
      await store.workspaces.create(notes);
      expect(await store.workspaces.get(notes.id)).toEqual(notes);
      expect(await store.workspaces.byName("notes")).toEqual(notes);
      expect(await store.workspaces.byPath("/srv/projects/notes")).toEqual(notes);
      expect(await store.workspaces.byName("other")).toBeUndefined();
      // Another connection sees it too: it is in the database, not in this process.
      const other = await target.open();
      try {
        expect(await other.workspaces.get(notes.id)).toEqual(notes);
      } finally {
        await other.close();
      }
    });

    it("refuses a second workspace with a taken name or an already registered folder, saying which", async () => {
      const first = await store.workspaces.create(workspace("site"));
      const sameName = await rejection(
        store.workspaces.create(workspace("site", { path: "/srv/elsewhere" })),
      );
      expect(sameName.code).toBe("workspace_exists");
      expect(sameName.message).toContain("named site");
      expect(sameName.hint).toContain("another name");
      const samePath = await rejection(store.workspaces.create(workspace("copy", { path: first.path })));
      expect(samePath.code).toBe("workspace_exists");
      expect(samePath.message).toContain(`${first.path} is already registered as workspace site`);
      expect((await store.workspaces.list()).map((w) => w.name)).toEqual(["site"]);
    });

    it("lists the most recently used first; a touch moves a workspace up", async () => {
      const a = await store.workspaces.create(workspace("a", { createdAt: 1000 }));
      const b = await store.workspaces.create(workspace("b", { createdAt: 2000 }));
      expect((await store.workspaces.list()).map((w) => w.name)).toEqual(["b", "a"]);
      await store.workspaces.touch(a.id, 5000);
      expect((await store.workspaces.list()).map((w) => w.name)).toEqual(["a", "b"]);
      expect((await store.workspaces.get(a.id))?.lastUsedAt).toBe(5000);
      expect((await store.workspaces.get(b.id))?.lastUsedAt).toBeNull();
    });

    it("keeps exactly one default: setting another moves it, creating one as default moves it too", async () => {
      const a = await store.workspaces.create(workspace("a"));
      const b = await store.workspaces.create(workspace("b"));
      expect(await store.workspaces.getDefault()).toBeUndefined();
      await store.workspaces.setDefault(a.id);
      expect((await store.workspaces.getDefault())?.id).toBe(a.id);
      expect((await store.workspaces.setDefault(b.id)).isDefault).toBe(true);
      expect((await store.workspaces.get(a.id))?.isDefault).toBe(false);
      const c = await store.workspaces.create(workspace("c", { isDefault: true }));
      expect((await store.workspaces.getDefault())?.id).toBe(c.id);
      expect((await store.workspaces.list()).filter((w) => w.isDefault).map((w) => w.name)).toEqual(["c"]);
      expect((await rejection(store.workspaces.setDefault("ws_missing"))).code).toBe("not_found");
    });

    it("renames to a free name only; an unknown id is not_found", async () => {
      const a = await store.workspaces.create(workspace("a"));
      await store.workspaces.create(workspace("b"));
      expect((await store.workspaces.rename(a.id, "alpha")).name).toBe("alpha");
      expect(await store.workspaces.byName("a")).toBeUndefined();
      expect((await rejection(store.workspaces.rename(a.id, "b"))).code).toBe("workspace_exists");
      expect((await rejection(store.workspaces.rename("ws_missing", "c"))).code).toBe("not_found");
    });

    it("replaces a workspace's settings; an unknown id is not_found", async () => {
      const created = await store.workspaces.create(workspace("tuned", { settings: { model: "a" } }));
      const changed = await store.workspaces.setSettings(created.id, {
        model: "b",
        memory: { enabled: false },
      });
      expect(changed.settings).toEqual({ model: "b", memory: { enabled: false } });
      expect((await store.workspaces.byName("tuned"))?.settings).toEqual({
        model: "b",
        memory: { enabled: false },
      });
      await expect(store.workspaces.setSettings(`ws_${ulid()}`, {})).rejects.toMatchObject({
        code: "not_found",
      });
    });

    it("remove unregisters once; the name and folder can be registered again", async () => {
      const a = await store.workspaces.create(workspace("a", { isDefault: true }));
      expect(await store.workspaces.remove(a.id)).toBe(true);
      expect(await store.workspaces.remove(a.id)).toBe(false);
      expect(await store.workspaces.get(a.id)).toBeUndefined();
      expect(await store.workspaces.getDefault()).toBeUndefined();
      const again = await store.workspaces.create(workspace("a"));
      expect((await store.workspaces.byPath(a.path))?.id).toBe(again.id);
    });
  });
}
