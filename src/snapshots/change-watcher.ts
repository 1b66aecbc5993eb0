// Which paths may have changed since the last snapshot, from the kernel (inotify through
// fs.watch, one watch per tracked folder), so that a snapshot after a typical step looks at a
// handful of paths instead of stat-ing the whole workspace.
//
// The kernel queues an event when the change happens, but when the process reads the queue
// is up to the event loop. So before it answers, the watcher renames a sentinel file in a
// folder of its own (outside the workspace) to a name it never used before and waits for
// that event: all of a process's watches share one inotify queue, read in order, so once the
// sentinel's event is in, every change made before it has been reported. The name is new each
// time because a watch set up again on a folder (a store opened again in the same process)
// can be handed events queued before it: an event for an old name must never answer. When the watcher cannot be trusted it says so and
// the caller walks the whole workspace instead: for good once a watch could not be added or
// failed (the kernel's limit, too many folders), and once after so many events that the
// kernel queue may have overflowed and dropped some, or when the sentinel does not come back.
import { randomBytes } from "node:crypto";
import { type FSWatcher, mkdirSync, renameSync, rmSync, utimesSync, watch, writeFileSync } from "node:fs";
import { join } from "node:path";

/**
 * More events than this between two snapshots and the watcher is not trusted: a lost event
 * needs the kernel queue (16,384 by default) to overflow, so at least that many must have come.
 */
const MAX_EVENTS = 4096;
/** Folders watched at most; a larger workspace is walked at every snapshot instead. */
export const MAX_WATCHED_FOLDERS = 8192;
/**
 * How often a live process touches its sentinel at most (ms): a sweep removes only sentinels
 * untouched for an hour, so once a minute keeps it well clear of that without a write per settle.
 */
const SENTINEL_TOUCH_MS = 60 * 1000;
/** How long the sentinel's event may take before this snapshot walks instead. */
const SENTINEL_TIMEOUT_MS = 2000;

export interface DirtyPaths {
  /** Paths (relative, "/"-separated) where something happened. */
  paths: Set<string>;
  /** Folders whose own listing must be read again (an event without a name). */
  folders: Set<string>;
}

export class ChangeWatcher {
  private readonly watchers = new Map<string, FSWatcher>();
  private dirty: DirtyPaths = { paths: new Set(), folders: new Set() };
  private events = 0;
  /** Why watching stopped for good, if it did. */
  private disabled: string | undefined;
  private sentinel: FSWatcher | undefined;
  /** The settles waiting, by the sentinel name whose event answers each. */
  private readonly arrived = new Map<string, () => void>();
  /** This watcher's own sentinel: another process's touches in the same folder do not count. */
  private readonly sentinelPrefix = `touch-${process.pid}-${randomBytes(4).toString("hex")}-`;
  private settles = 0;
  /** When the sentinel was last touched (0: never). */
  private touchedAt = 0;
  /** The sentinel file's name now. */
  private sentinelName = `${this.sentinelPrefix}0`;

  /** `sentinelDir`: a folder of reson's own, outside the workspace. */
  constructor(private readonly sentinelDir: string) {}

  /** Watches the folder `rel` (at `abs`); false when it cannot (the caller then walks). */
  watch(rel: string, abs: string): boolean {
    if (this.disabled) return false;
    if (this.watchers.has(rel)) return true;
    if (this.watchers.size >= MAX_WATCHED_FOLDERS) {
      this.fail(`more than ${MAX_WATCHED_FOLDERS} folders`);
      return false;
    }
    try {
      this.sentinel ??= this.watchSentinel();
      const watcher = watch(abs, { persistent: false }, (_event, name) => {
        this.events++;
        if (typeof name === "string" && name.length > 0)
          this.dirty.paths.add(rel === "" ? name : `${rel}/${name}`);
        else this.dirty.folders.add(rel);
      });
      watcher.on("error", (error) => this.fail(`watch error: ${error.message}`));
      this.watchers.set(rel, watcher);
      return true;
    } catch (error) {
      this.fail(`cannot watch ${rel || "."}: ${(error as Error).message}`);
      return false;
    }
  }

  private watchSentinel(): FSWatcher {
    mkdirSync(this.sentinelDir, { recursive: true });
    writeFileSync(join(this.sentinelDir, this.sentinelName), "");
    const watcher = watch(this.sentinelDir, { persistent: false }, (_event, name) => {
      if (typeof name !== "string") return;
      const resolve = this.arrived.get(name);
      if (!resolve) return;
      this.arrived.delete(name);
      resolve();
    });
    watcher.on("error", (error) => this.fail(`watch error: ${error.message}`));
    return watcher;
  }

  /** Stops watching `rel` and every folder below it. */
  unwatch(rel: string): void {
    const prefix = `${rel}/`;
    for (const [path, watcher] of this.watchers) {
      if (path !== rel && !path.startsWith(prefix)) continue;
      watcher.close();
      this.watchers.delete(path);
    }
  }

  /**
   * What changed since the last take, once every event queued before now is in; undefined
   * when the watcher cannot tell (then every path must be looked at).
   */
  async take(): Promise<DirtyPaths | undefined> {
    const settled = this.watchers.size === 0 || (await this.settle());
    const dirty = this.dirty;
    const trusted = settled && !this.disabled && this.events <= MAX_EVENTS;
    this.dirty = { paths: new Set(), folders: new Set() };
    this.events = 0;
    return trusted ? dirty : undefined;
  }

  /** Renames the sentinel to a new name and waits for that event; false if it did not come in time. */
  private settle(): Promise<boolean> {
    return new Promise((resolve) => {
      const next = `${this.sentinelPrefix}${++this.settles}`;
      // Kept referenced: the watches are not, and the process must stay up for the answer.
      const timer = setTimeout(() => {
        this.arrived.delete(next);
        resolve(false);
      }, SENTINEL_TIMEOUT_MS);
      this.arrived.set(next, () => {
        clearTimeout(timer);
        resolve(true);
      });
      try {
        renameSync(join(this.sentinelDir, this.sentinelName), join(this.sentinelDir, next));
        this.sentinelName = next;
        // A live process's sentinel stays young: a sweep removes only old ones.
        const nowMs = Date.now();
        if (nowMs - this.touchedAt >= SENTINEL_TOUCH_MS) {
          const now = new Date(nowMs);
          utimesSync(join(this.sentinelDir, next), now, now);
          this.touchedAt = nowMs;
        }
      } catch {
        this.arrived.delete(next);
        clearTimeout(timer);
        resolve(false);
      }
    });
  }

  /** Why watching stopped for good, if it did. */
  get problem(): string | undefined {
    return this.disabled;
  }

  close(): void {
    for (const watcher of this.watchers.values()) watcher.close();
    this.watchers.clear();
    if (this.sentinel) {
      this.sentinel.close();
      this.sentinel = undefined;
      rmSync(join(this.sentinelDir, this.sentinelName), { force: true });
    }
    for (const resolve of this.arrived.values()) resolve();
    this.arrived.clear();
  }

  private fail(why: string): void {
    this.disabled ??= why;
    this.close();
  }
}
