// The workspace manager through its module surface, on a real SQLite store: the default
// workspace made once and made again when its folder went, references by name, id and id
// prefix, and the folders whose files are never deleted.
import { existsSync, mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ResonError } from "../../src/core/errors.js";
import { openStore, type Store, type WorkspaceRecord } from "../../src/store/index.js";
import { deletionRefusal, WorkspaceManager } from "../../src/workspaces/index.js";
import { type TempDir, tempDir } from "../support/cli.js";

describe("workspace manager", () => {
  let dir: TempDir;
  let store: Store;
  let manager: WorkspaceManager;
  const home = () => join(dir.path, "user");

  beforeEach(async () => {
    dir = tempDir();
    mkdirSync(home());
    store = await openStore({ home: dir.home });
    manager = new WorkspaceManager({ store, env: { RESON_HOME: dir.home }, home: home() });
  });
  afterEach(async () => {
    await store.close();
    dir.remove();
  });

  it("makes the default workspace once, in $RESON_HOME/workspaces/default, and again when its folder was deleted", async () => {
    const first = await manager.ensureDefault();
    expect(first.created).toBe(true);
    expect(first.workspace).toMatchObject({ name: "default", isDefault: true, template: "empty" });
    expect(first.workspace.path).toBe(join(dir.home, "workspaces", "default"));
    const again = await manager.ensureDefault();
    expect(again).toEqual({ workspace: first.workspace, created: false });
    rmSync(first.workspace.path, { recursive: true });
    const remade = await manager.ensureDefault();
    expect(remade.workspace.id).toBe(first.workspace.id);
    expect(existsSync(first.workspace.path)).toBe(true);
  });

  it("ensureDefault follows the default the user chose", async () => {
    const { workspace: notes } = await manager.create({ name: "notes", template: "notes" });
    await manager.setDefault("notes");
    expect((await manager.ensureDefault()).workspace.id).toBe(notes.id);
    expect((await manager.list()).map((w) => w.name)).toEqual(["notes"]);
  });

  it("finds a workspace by name, id, or an id prefix of six characters or more, in any case", async () => {
    const { workspace } = await manager.create({ name: "site" });
    expect((await manager.get("site")).id).toBe(workspace.id);
    expect((await manager.get(workspace.id)).id).toBe(workspace.id);
    expect((await manager.get(workspace.id.slice(0, 12).toLowerCase())).id).toBe(workspace.id);
    const short = await manager.get(workspace.id.slice(0, 5)).catch((error: unknown) => error);
    expect(short).toBeInstanceOf(ResonError);
    expect((short as ResonError).code).toBe("not_found");
  });

  it("resolves -w values: a name to its folder, a path to itself, a folder that shares a name wins with a note", async () => {
    const { workspace } = await manager.create({ name: "app" });
    expect(await manager.resolve("app", dir.path)).toEqual({ path: workspace.path, workspace });
    const other = join(dir.path, "other");
    expect(await manager.resolve(other, dir.path)).toEqual({ path: other });
    mkdirSync(join(dir.path, "app"));
    const both = await manager.resolve("app", dir.path);
    expect(both.path).toBe(join(dir.path, "app"));
    expect(both.workspace).toBeUndefined();
    expect(both.note).toContain(`give its path or id (${workspace.id})`);
  });

  it("never deletes a folder that holds more than a workspace", () => {
    const record = (path: string): WorkspaceRecord => ({
      id: "ws_X",
      name: "x",
      path,
      template: null,
      settings: {},
      createdByReson: true,
      isDefault: false,
      createdAt: 0,
      lastUsedAt: null,
    });
    const places = { home: home(), resonHome: dir.home };
    expect(deletionRefusal(record("/"), places)).toContain("whole file system");
    expect(deletionRefusal(record(home()), places)).toContain("your home folder");
    expect(deletionRefusal(record(dir.home), places)).toContain("reson's own folder");
    expect(deletionRefusal(record(join(dir.home, "workspaces")), places)).toContain(
      "folder of all workspaces",
    );
    const nested = { home: home(), resonHome: join(dir.path, "data", "reson-home") };
    expect(deletionRefusal(record(join(dir.path, "data")), nested)).toContain(
      "it contains reson's own folder",
    );
    expect(deletionRefusal(record(join(dir.home, "workspaces", "x")), places)).toBeUndefined();
    expect(deletionRefusal(record(join(home(), "code", "x")), places)).toBeUndefined();
  });
});
