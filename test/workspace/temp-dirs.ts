// Real temporary folders for workspace and tool tests: a base folder holding the workspace
// root, an "outside" folder with a canary file, and a sibling whose name has the root as a
// prefix. Removed by `cleanup`.
import { mkdir, mkdtemp, readdir, readFile, realpath, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";

export const CANARY = "TOP-SECRET-CANARY-7f3a";

export interface TempLayout {
  base: string;
  root: string;
  outside: string;
  sibling: string;
  cleanup(): Promise<void>;
  /** Writes files under the root (parents created); contents as given. */
  write(files: Record<string, string | Buffer>): Promise<void>;
  /** Makes symlinks under the root: name -> target (as given, relative or absolute). */
  link(links: Record<string, string>): Promise<void>;
  /** Everything under the outside folder and the sibling, path -> content, to compare later. */
  snapshotOutside(): Promise<Record<string, string>>;
}

async function snapshot(dir: string, into: Record<string, string>): Promise<void> {
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) await snapshot(path, into);
    else if (entry.isFile()) into[path] = await readFile(path, "utf8");
    else into[path] = `<${entry.isSymbolicLink() ? "symlink" : "other"}>`;
  }
}

export async function makeTempLayout(): Promise<TempLayout> {
  const base = await realpath(await mkdtemp(join(tmpdir(), "reson-ws-")));
  const root = join(base, "ws");
  const outside = join(base, "outside");
  const sibling = join(base, "ws-evil");
  await mkdir(root);
  await mkdir(outside);
  await mkdir(sibling);
  await writeFile(join(outside, "secret.txt"), `${CANARY}\n`);
  await writeFile(join(sibling, "secret.txt"), `${CANARY} sibling\n`);
  return {
    base,
    root,
    outside,
    sibling,
    cleanup: () => rm(base, { recursive: true, force: true }),
    async write(files) {
      for (const [name, content] of Object.entries(files)) {
        const path = join(root, name);
        await mkdir(dirname(path), { recursive: true });
        await writeFile(path, content);
      }
    },
    async link(links) {
      for (const [name, target] of Object.entries(links)) {
        const path = join(root, name);
        await mkdir(dirname(path), { recursive: true });
        await symlink(target, path);
      }
    },
    async snapshotOutside() {
      const out: Record<string, string> = {};
      await snapshot(outside, out);
      await snapshot(sibling, out);
      return out;
    },
  };
}
