// One `reson plugin` change at a time per scope: npm does not survive two installs into one
// prefix at once (each rewrites package.json and the lockfile), and a registry update is a
// read-modify-write. A lock file beside the registry, created exclusively, holds the pid of
// its owner; a lock whose owner is gone (killed mid-install) is taken over.
import { mkdir, open, readFile, unlink } from "node:fs/promises";
import { dirname } from "node:path";
import { sleep } from "../core/abort.js";
import { ResonError } from "../core/errors.js";
import { processAlive } from "../core/process-alive.js";

export interface LockOptions {
  signal?: AbortSignal;
  /** How long to wait for another process's change to finish. */
  waitMs?: number;
}

async function ownerGone(file: string): Promise<boolean> {
  const text = await readFile(file, "utf8").catch(() => undefined);
  if (text === undefined) return false;
  const pid = Number.parseInt(text, 10);
  // An empty file is a lock being written this instant, not a dead one.
  return Number.isInteger(pid) && pid > 0 && pid !== process.pid && !processAlive(pid);
}

/** Runs `work` while holding the lock file `file`; waits (polling) while another process holds it. */
export async function withLock<T>(
  file: string,
  work: () => Promise<T>,
  options: LockOptions = {},
): Promise<T> {
  const waitMs = options.waitMs ?? 10 * 60_000;
  const started = Date.now();
  await mkdir(dirname(file), { recursive: true, mode: 0o700 });
  for (let attempt = 0; ; attempt++) {
    try {
      const handle = await open(file, "wx", 0o600);
      try {
        await handle.writeFile(String(process.pid));
      } finally {
        await handle.close();
      }
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
    if (await ownerGone(file)) {
      await unlink(file).catch(() => {});
      continue;
    }
    if (Date.now() - started > waitMs)
      throw new ResonError("plugin_failed", `Another reson is changing the plugins (${file} is held).`, {
        hint: `Wait for it to finish; if no reson is running, delete ${file}.`,
      });
    await sleep(Math.min(25 * 2 ** Math.min(attempt, 4), 400), options.signal);
  }
  try {
    return await work();
  } finally {
    await unlink(file).catch(() => {});
  }
}
