// One workspace's snapshots, outside the workspace: $RESON_HOME/snapshots/<key>/ holds the
// objects, each run's snapshot points (one JSON line each, appended), the rewinds and their
// journal, and the saved index. A process keeps one store per workspace, shared by its runs
// and sub-agents, so the model of the workspace and its file-system watches carry from one
// snapshot (and one run) to the next.
//
// What is committed last is what refers to the rest: objects first, then the point that names
// their tree. A crash in between leaves objects nothing refers to, which a sweep removes.
import {
  appendFileSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
} from "node:fs";
import { join } from "node:path";
import { writeFileAtomicSync } from "../core/atomic-write.js";
import { crashPoint } from "../core/crash-point.js";
import { projectKey } from "../store/index.js";
import { livePlaceholders } from "../workspace/index.js";
import { ChangeWatcher } from "./change-watcher.js";
import { copyIgnoredSteering, type SteeringCopies } from "./ignored-steering.js";
import { ObjectStore } from "./object-store.js";
import { scanForRewind } from "./rewind-scan.js";
import { appendIndex, type IndexFiles, loadIndex, saveIndex } from "./stat-index.js";
import {
  type CaptureResult,
  DEFAULT_SNAPSHOT_SETTINGS,
  type SnapshotPoint,
  type SnapshotSettings,
} from "./types.js";
import { WorkspaceModel } from "./workspace-model.js";

/** Facts about the workspace's store as a whole. */
export interface WorkspaceFacts {
  /** The workspace's real path. */
  root: string;
  createdAt: number;
  /** When a sweep last removed objects: a saved index older than this is void. */
  sweptAt: number;
  /** Bytes of objects, as counted by the last sweep plus what was added since. */
  bytes: number;
}

const RUN_ID = /^[0-9A-Za-z_-]{1,80}$/;

/** Where every workspace's snapshots live. */
export function snapshotsHome(home: string): string {
  return join(home, "snapshots");
}

const stores = new Map<string, SnapshotStore>();

export class SnapshotStore {
  readonly objects: ObjectStore;
  private watcher: ChangeWatcher;
  private model: WorkspaceModel;
  private settingsKey: string;
  private queue: Promise<unknown> = Promise.resolve();
  /** The sweep the model's hashes are known to have survived. */
  private modelSweptAt = -1;
  /** The tree this process captured last: what its model of the workspace stands for. */
  private captured: string | undefined;
  /** workspace.json as last read, with the facts of the file it was read from. */
  private factsRead: { ino: number; mtimeMs: number; size: number; facts: WorkspaceFacts } | undefined;
  /** Whether bytes hold one of the user's secrets (set by the run that snapshots; none: never). */
  private secretCheck: ((bytes: Buffer) => boolean) | undefined;

  /** Files whose bytes `check` finds a secret in are left out of every later snapshot ("secret"). */
  withholdSecrets(check: (bytes: Buffer) => boolean): void {
    this.secretCheck = check;
  }

  /**
   * The store of the workspace `root` (its real path) under `home`, one per process: a second
   * call gives the same store (with these settings from now on).
   */
  static open(
    home: string,
    root: string,
    settings: SnapshotSettings = DEFAULT_SNAPSHOT_SETTINGS,
  ): SnapshotStore {
    const dir = join(snapshotsHome(home), projectKey(root).slice(0, 32));
    let store = stores.get(dir);
    if (!store) {
      store = new SnapshotStore(home, root, dir, settings);
      stores.set(dir, store);
    }
    store.configure(settings);
    return store;
  }

  /** The stores of every workspace with snapshots under `home` (for gc). */
  static all(home: string): SnapshotStore[] {
    let names: string[];
    try {
      names = readdirSync(snapshotsHome(home));
    } catch {
      return [];
    }
    const found: SnapshotStore[] = [];
    for (const name of names) {
      try {
        const facts = JSON.parse(
          readFileSync(join(snapshotsHome(home), name, "workspace.json"), "utf8"),
        ) as WorkspaceFacts;
        found.push(SnapshotStore.open(home, facts.root));
      } catch {
        // not a workspace's store (or one being made): left alone
      }
    }
    return found;
  }

  private constructor(
    readonly home: string,
    readonly root: string,
    readonly dir: string,
    private settings: SnapshotSettings,
  ) {
    mkdirSync(join(dir, "objects"), { recursive: true, mode: 0o700 });
    mkdirSync(join(dir, "runs"), { recursive: true });
    this.objects = new ObjectStore(join(dir, "objects"));
    this.watcher = new ChangeWatcher(join(dir, "sentinel"));
    this.settingsKey = JSON.stringify(settings);
    this.model = this.newModel();
    try {
      readFileSync(this.path("workspace.json"));
    } catch {
      const now = Date.now();
      this.writeFacts({ root, createdAt: now, sweptAt: 0, bytes: 0 });
    }
  }

  private newModel(): WorkspaceModel {
    let home = this.home;
    try {
      home = realpathSync(this.home);
    } catch {
      // not there yet: its name is what commands would make
    }
    return new WorkspaceModel({
      root: this.root,
      settings: this.settings,
      objects: this.objects,
      sealed: [home],
      watcher: this.watcher,
      holdsSecret: (bytes) => this.secretCheck?.(bytes) ?? false,
      placeholders: () => livePlaceholders(this.root),
    });
  }

  private configure(settings: SnapshotSettings): void {
    const key = JSON.stringify(settings);
    if (key === this.settingsKey) return;
    // Other rules change what is tracked: start over from a walk.
    this.settings = settings;
    this.settingsKey = key;
    this.watcher.close();
    this.watcher = new ChangeWatcher(this.path("sentinel"));
    this.model = this.newModel();
    this.modelSweptAt = -1;
    this.captured = undefined;
  }

  path(...names: string[]): string {
    return join(this.dir, ...names);
  }

  /** Whether snapshots after the first look only at what the watcher reports (else they walk). */
  get watching(): boolean {
    return this.watcher.problem === undefined;
  }

  /** Copies of the steering files inside `folders` (ignored ones), with the snapshots' limits. */
  copyIgnoredSteering(folders: Iterable<string>): SteeringCopies {
    return copyIgnoredSteering(this.root, folders, {
      objects: this.objects,
      maxFileBytes: this.settings.maxFileBytes,
      holdsSecret: (bytes) => this.secretCheck?.(bytes) ?? false,
    });
  }

  /**
   * Takes a snapshot of the workspace as it is now: its objects are stored, nothing refers to
   * it yet (appendPoint or a rewind record does). One at a time per workspace in a process.
   */
  capture(): Promise<CaptureResult> {
    const next = this.queue.then(() => this.captureNow());
    this.queue = next.catch(() => {});
    return next;
  }

  private async captureNow(): Promise<CaptureResult> {
    const facts = this.facts();
    if (facts.sweptAt !== this.modelSweptAt) {
      // A sweep may have removed objects the model's hashes name: hash everything again.
      if (this.modelSweptAt !== -1) {
        this.model.forget();
        this.objects.forgetDirs();
      }
      this.modelSweptAt = facts.sweptAt;
      const index = loadIndex(this.indexFiles, facts.sweptAt);
      if (index) {
        this.model.seed(index.files);
        this.objects.vouch(index.trees, index.savedAt);
      }
    }
    const dirty = await this.watcher.take();
    const first = !this.model.started;
    const { tree, addedBytes } = this.model.update(first ? undefined : dirty);
    this.captured = tree;
    crashPoint("snapshot-objects-written");

    return { tree, addedBytes, mode: first || !dirty ? "walk" : "watch", hashed: this.model.hashed };
  }

  /**
   * The workspace's tree as a rewind from the head `head` to `target` needs it, read only
   * where the two differ (rewind-scan.ts); undefined when only a capture can tell.
   */
  scanForRewind(head: string, target: string): string | undefined {
    const options = {
      objects: this.objects,
      root: this.root,
      maxFileBytes: this.settings.maxFileBytes,
      holdsSecret: (bytes: Buffer) => this.secretCheck?.(bytes) ?? false,
    };
    return scanForRewind(options, head, target);
  }

  private get indexFiles(): IndexFiles {
    return { base: this.path("index.json"), journal: this.path("index-delta.jsonl") };
  }

  /**
   * Saves what snapshots hashed since the last save (a line appended to the index's journal,
   * or the whole index when the journal has grown large), so the next process hashes only
   * what changed after this.
   */
  saveIndex(): void {
    if (!this.model.started) return;
    const unsaved = this.model.takeUnsaved();
    if (unsaved.files.size === 0 && unsaved.trees.size === 0) return;
    if (appendIndex(this.indexFiles, unsaved.files, unsaved.trees)) return;
    saveIndex(this.indexFiles, this.model.entries(), this.model.trees());
  }

  /** Records a snapshot of a run (after the objects it names). */
  appendPoint(point: SnapshotPoint): void {
    if (!RUN_ID.test(point.runId)) throw new Error(`invalid run id ${point.runId}`);
    appendFileSync(this.path("runs", `${point.runId}.jsonl`), `${JSON.stringify(point)}\n`);
  }

  /** A run's snapshots in order (a line cut short by a crash is skipped). */
  points(runId: string): SnapshotPoint[] {
    if (!RUN_ID.test(runId)) return [];
    let text: string;
    try {
      text = readFileSync(this.path("runs", `${runId}.jsonl`), "utf8");
    } catch {
      return [];
    }
    const points: SnapshotPoint[] = [];
    for (const line of text.split("\n")) {
      if (!line) continue;
      try {
        points.push(JSON.parse(line) as SnapshotPoint);
      } catch {
        // the last line of a process killed while appending it
      }
    }
    return points;
  }

  /** The runs whose snapshots were written to last, newest first (at most `count`). */
  recentRuns(count: number): string[] {
    const runs: Array<{ runId: string; at: number }> = [];
    for (const runId of this.runIds()) {
      try {
        runs.push({ runId, at: statSync(this.path("runs", `${runId}.jsonl`)).mtimeMs });
      } catch {
        // removed meanwhile
      }
    }
    return runs
      .sort((a, b) => b.at - a.at)
      .slice(0, count)
      .map((run) => run.runId);
  }

  /** The ids of the runs with snapshots here. */
  runIds(): string[] {
    try {
      return readdirSync(this.path("runs"))
        .filter((name) => name.endsWith(".jsonl"))
        .map((name) => name.slice(0, -".jsonl".length));
    } catch {
      return [];
    }
  }

  /** Forgets a run's snapshots (their objects go at the next sweep). */
  removeRun(runId: string): void {
    if (RUN_ID.test(runId)) rmSync(this.path("runs", `${runId}.jsonl`), { force: true });
  }

  facts(): WorkspaceFacts {
    const path = this.path("workspace.json");
    try {
      // Read again only when the file was replaced (every capture asks: has a sweep run?).
      const stats = statSync(path);
      const known = this.factsRead;
      if (known && known.ino === stats.ino && known.mtimeMs === stats.mtimeMs && known.size === stats.size)
        return known.facts;
      const facts = JSON.parse(readFileSync(path, "utf8")) as WorkspaceFacts;
      this.factsRead = { ino: stats.ino, mtimeMs: stats.mtimeMs, size: stats.size, facts };
      return facts;
    } catch {
      return { root: this.root, createdAt: Date.now(), sweptAt: 0, bytes: 0 };
    }
  }

  writeFacts(facts: WorkspaceFacts): void {
    writeFileAtomicSync(this.path("workspace.json"), JSON.stringify(facts), { sync: false });
  }

  /** Counts bytes a run added (an estimate between sweeps, which count exactly). */
  addBytes(bytes: number): WorkspaceFacts {
    const facts = this.facts();
    if (bytes === 0) return facts;
    const next = { ...facts, bytes: facts.bytes + bytes };
    this.writeFacts(next);
    return next;
  }

  /** The tree this process captured last (a sweep keeps what it names). */
  get liveTree(): string | undefined {
    return this.captured;
  }

  /**
   * After a sweep: facts updated, and this process's model kept (what it names was kept
   * as the live tree); other processes hash anew.
   */
  swept(at: number, bytes: number): void {
    this.writeFacts({ ...this.facts(), sweptAt: at, bytes });
    if (this.modelSweptAt !== -1) this.modelSweptAt = at;
  }

  get limits(): SnapshotSettings {
    return this.settings;
  }

  /** Lets go of the watches (the process keeps nothing else open). */
  close(): void {
    this.saveIndex();
    this.watcher.close();
    stores.delete(this.dir);
  }
}
