// POST /workspaces with a path under a workspace root, against a real `reson serve`: whatever
// a run planted in the root (a symlink at any level, dangling, relative, chained, looping; `..`
// in the path; a link inside a folder a template writes into; a link re-pointed while the
// request is in flight), the registration stays in the root and nothing appears outside it.
import { type ChildProcess, spawn } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  realpathSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { basename, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type TempDir, tempDir } from "../support/cli.js";
import { type Served, startServed } from "../support/served-run.js";
import { killAllReson } from "../support/service-process.js";

/** Every path under `dir`, relative, sorted (links listed, not followed). */
function tree(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: "utf8" }).sort();
}

describe("POST /workspaces under a workspace root", () => {
  let root: TempDir;
  let outside: TempDir;
  let served: Served;
  let realRoot: string;
  let seq = 0;

  beforeAll(async () => {
    root = tempDir();
    outside = tempDir();
    realRoot = realpathSync(root.path);
    mkdirSync(join(outside.path, "existing"));
    writeFileSync(join(outside.path, "file.txt"), "outside\n");
    served = await startServed(root.home, root.path);
  });
  afterAll(async () => {
    await killAllReson();
    root.remove();
    outside.remove();
  });

  const register = async (path: string, template?: string) => {
    const response = await fetch(`${served.url}/workspaces`, {
      method: "POST",
      headers: served.headers,
      body: JSON.stringify({ name: `w${++seq}`, path, ...(template ? { template } : {}) }),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };

  const R = () => root.path;
  const O = () => outside.path;
  /** Each plants links in the root and names a path that would lead out through them. */
  const escapes: Array<[string, () => string]> = [
    ["a link to a folder outside, then a new folder", () => link(O(), "l1", "new")],
    ["the link itself", () => link(join(O(), "existing"), "l2")],
    [
      "a link three levels down",
      () => {
        mkdirSync(join(R(), "a", "b"), { recursive: true });
        symlinkSync(O(), join(R(), "a", "b", "l3"));
        return join(R(), "a", "b", "l3", "c", "d");
      },
    ],
    ["a dangling link, then a new folder", () => link(join(O(), "missing-4"), "l4", "new")],
    ["a dangling link as the folder", () => link(join(O(), "missing-5", "deeper"), "l5")],
    ["a relative link that climbs out", () => link(join("..", basename(O())), "l6", "new")],
    [
      "a chain of links",
      () => {
        symlinkSync(O(), join(R(), "l7b"));
        return link(join(R(), "l7b"), "l7a", "new");
      },
    ],
    ["a relative dangling link that climbs out", () => link(join("..", basename(O()), "missing-8"), "l8")],
    ["`..` out of the root", () => `${R()}/x/../../${basename(O())}/new-10`],
    ["a link to a file outside", () => link(join(O(), "file.txt"), "l11", "new")],
  ];

  function link(target: string, name: string, ...below: string[]): string {
    symlinkSync(target, join(R(), name));
    return join(R(), name, ...below);
  }

  it.each(escapes)("refuses %s with 403, and makes nothing outside", async (_, plant) => {
    const before = tree(O());
    const reply = await register(plant());
    expect(reply.status, JSON.stringify(reply.body)).toBe(403);
    expect(reply.body).toMatchObject({ error: { code: "forbidden", hint: expect.any(String) } });
    expect(tree(O())).toEqual(before);
  });

  it("refuses a loop of links without failing itself", async () => {
    symlinkSync(join(R(), "loop-b"), join(R(), "loop-a"));
    symlinkSync(join(R(), "loop-a"), join(R(), "loop-b"));
    const reply = await register(join(R(), "loop-a", "new"));
    expect(reply.status).toBeGreaterThanOrEqual(400);
    expect(reply.status).toBeLessThan(500);
  });

  it("registers a new folder, and one reached through a link that stays in the root, by its real path", async () => {
    const plain = await register(join(R(), "p", "q", "r"));
    expect(plain.status).toBe(201);
    expect(plain.body.path).toBe(join(realRoot, "p", "q", "r"));
    mkdirSync(join(R(), "inner"));
    const viaLink = await register(link(join(R(), "inner"), "to-inner", "new"));
    expect(viaLink.status).toBe(201);
    expect(viaLink.body.path).toBe(join(realRoot, "inner", "new"));
    expect(existsSync(join(R(), "inner", "new"))).toBe(true);
    // `..` is read by name, before anything is looked up: after a link out it climbs back into
    // the root, where the folder is made.
    const before = tree(O());
    const dotDot = await register(`${link(O(), "l-out")}/../by-name`);
    expect(dotDot.status).toBe(201);
    expect(dotDot.body.path).toBe(join(realRoot, "by-name"));
    expect(tree(O())).toEqual(before);
  });

  it("writes no template file through a link planted in the folder, and leaves nothing registered", async () => {
    const project = join(R(), "project");
    mkdirSync(project);
    symlinkSync(join(O(), "notes-target"), join(project, "notes"));
    const before = tree(O());
    const reply = await register(project, "notes");
    expect(reply.status, JSON.stringify(reply.body)).toBe(403);
    expect(tree(O())).toEqual(before);
    const { workspaces } = (await (
      await fetch(`${served.url}/workspaces`, { headers: served.headers })
    ).json()) as {
      workspaces: Array<{ path: string }>;
    };
    expect(workspaces.map((w) => w.path)).not.toContain(realpathSync(project));
    // Without the link the same folder takes the template.
    const clean = join(R(), "clean");
    mkdirSync(clean);
    expect((await register(clean, "notes")).status).toBe(201);
    expect(readFileSync(join(clean, "notes", "README.md"), "utf8")).toBe("# Notes\n\n");
  });

  it("never follows a link re-pointed out of the root while requests are in flight", async () => {
    mkdirSync(join(R(), "swap-inside"));
    symlinkSync(join(R(), "swap-inside"), join(R(), "swap"));
    const stop = join(root.home, "stop-swapping");
    // Another process re-points R/swap between inside and outside the root, atomically
    // (a new link renamed over it), as fast as it can, until told to stop.
    const swapper: ChildProcess = spawn(
      process.execPath,
      [
        "-e",
        `const fs = require("node:fs");
         const [swap, inside, outside, stop] = process.argv.slice(1);
         for (let i = 0; i < 5_000_000 && !fs.existsSync(stop); i++) {
           const tmp = swap + ".tmp";
           try { fs.symlinkSync(i % 2 ? outside : inside, tmp); fs.renameSync(tmp, swap); } catch {}
         }`,
        join(R(), "swap"),
        join(R(), "swap-inside"),
        O(),
        stop,
      ],
      { stdio: "ignore" },
    );
    const ended = new Promise((resolve) => swapper.once("exit", resolve));
    const before = tree(O());
    const statuses = new Set<number>();
    try {
      for (let i = 0; i < 60; i++) {
        const reply = await register(join(R(), "swap", `race-${i}`));
        statuses.add(reply.status);
        if (reply.status === 201) expect(String(reply.body.path).startsWith(`${realRoot}/`)).toBe(true);
        else expect(reply.status, JSON.stringify(reply.body)).toBe(403);
      }
    } finally {
      writeFileSync(stop, "");
      await ended;
    }
    expect(tree(O())).toEqual(before);
  }, 60_000);
});
