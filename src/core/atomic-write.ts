// Atomic file replacement: write a temp file beside the target, fsync, rename over it.
// Readers see the old content or the new, never a half-written file.
import { randomBytes } from "node:crypto";
import { closeSync, fsyncSync, openSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { open, rename, unlink } from "node:fs/promises";
import { basename, dirname, join } from "node:path";

export interface AtomicWriteOptions {
  /** Mode of the written file (default 0o644); callers replacing a file pass its old mode. */
  mode?: number;
}

export async function writeFileAtomic(
  path: string,
  data: string | Uint8Array,
  options: AtomicWriteOptions = {},
): Promise<void> {
  const temp = join(dirname(path), `.${basename(path)}.${randomBytes(6).toString("hex")}.tmp`);
  const handle = await open(temp, "wx", options.mode ?? 0o644);
  try {
    await handle.writeFile(data);
    await handle.sync();
  } catch (error) {
    await handle.close();
    await unlink(temp).catch(() => {});
    throw error;
  }
  await handle.close();
  try {
    await rename(temp, path);
  } catch (error) {
    await unlink(temp).catch(() => {});
    throw error;
  }
}

/**
 * writeFileAtomic without the thread pool, for small files written on a hot path. `sync`
 * false skips the fsync: the file is then whole or absent after a crash of the process, but
 * not necessarily after a crash of the machine.
 */
export function writeFileAtomicSync(
  path: string,
  data: string | Uint8Array,
  options: AtomicWriteOptions & { sync?: boolean } = {},
): void {
  const temp = join(dirname(path), `.${basename(path)}.${randomBytes(6).toString("hex")}.tmp`);
  const fd = openSync(temp, "wx", options.mode ?? 0o644);
  try {
    writeFileSync(fd, data);
    if (options.sync !== false) fsyncSync(fd);
  } catch (error) {
    closeSync(fd);
    rmSync(temp, { force: true });
    throw error;
  }
  closeSync(fd);
  try {
    renameSync(temp, path);
  } catch (error) {
    rmSync(temp, { force: true });
    throw error;
  }
}
