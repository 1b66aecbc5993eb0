// The loop's side of workspace snapshots: which calls are snapshotted (those that may change
// files: not read-only tools, not tools that declare they change none, not commands the
// permission gate's read-only set covers), and the snapshots of a run turned into what the
// loop needs: nothing before a call, the files a call changed after it. A snapshot that fails
// (a full disk) never fails the run: it is said once as a warning, and the run goes on
// without snapshots.
import { loadConfig } from "../config/index.js";
import type { ResonEvent } from "../core/events.js";
import { RunSnapshots, type SnapshotSettings, SnapshotStore } from "../snapshots/index.js";
import type { ToolCallRequest, ToolDefinition } from "../tools/index.js";
import type { Workspace } from "../workspace/index.js";

/** Files a call changed, as the files_changed event carries them. */
export interface CallChanges {
  files: Array<{ path: string; change: "added" | "modified" | "deleted" | "mode" | "type" }>;
  /** Files changed in all (`files` lists at most MAX_LISTED). */
  total: number;
  /** What the call changed that was put back as it was (`after`'s keepOut); absent for none. */
  putBack?: string[];
  /** Of what was to be put back, what could not be (reson keeps no copy: ignored, too large). */
  notPutBack?: string[];
}

const MAX_LISTED = 50;

export interface StepSnapshots {
  /**
   * Sees the run's events: once the first model call is on its way, the workspace is walked
   * (its first snapshot in this process), so that a walk of a large workspace overlaps the
   * model's answer instead of delaying the first call that changes files.
   */
  observe(event: ResonEvent): void;
  /** Whether the call may change files, so is snapshotted around. */
  covers(call: ToolCallRequest, tool: ToolDefinition | undefined): boolean;
  /** `guardSteering`: `after` will be given a keepOut (see there), for what snapshots leave out too. */
  before(step: number, call: ToolCallRequest, guardSteering?: boolean): Promise<void>;
  /**
   * What the call changed; undefined when nothing (or snapshots are off now). `keepOut` names,
   * for a changed path, the part of the workspace the call may not change (a path or a folder
   * above it): those are put back as they were before the call.
   */
  after(
    step: number,
    call: ToolCallRequest,
    keepOut?: (path: string) => string | undefined,
  ): Promise<CallChanges | undefined>;
  /** The run ended or stopped at `step`. */
  end(step: number): Promise<void>;
}

export interface StepSnapshotOptions {
  store: SnapshotStore;
  runId: string;
  commandOnlyReads?: (command: string) => boolean;
  warn: (message: string) => void;
}

export function stepSnapshots(options: StepSnapshotOptions): StepSnapshots {
  const run = new RunSnapshots(options.store, options.runId);
  let off = false;
  let warmed = false;
  const guarded = async <T>(work: () => Promise<T>): Promise<T | undefined> => {
    if (off) return undefined;
    try {
      return await work();
    } catch (error) {
      off = true;
      options.warn(
        `workspace snapshots are off for the rest of this run: ${(error as Error).message}. ` +
          "`reson rewind` can still restore what was snapshotted before.",
      );
      return undefined;
    }
  };
  return {
    observe(event) {
      if (warmed || event.type !== "phase" || event.phase !== "call_provider") return;
      warmed = true;
      // After the request is written: the walk blocks this process, not the model.
      setImmediate(() => void guarded(() => options.store.capture()));
    },
    covers(call, tool) {
      if (!tool || tool.readOnly || tool.changesFiles === false) return false;
      const command = call.arguments.command;
      if (
        call.name === "execute_command" &&
        typeof command === "string" &&
        options.commandOnlyReads?.(command)
      )
        return false;
      return true;
    },
    before: async (step, call, guardSteering) => {
      await guarded(() => run.before(step, call, guardSteering));
    },
    after: async (step, call, keepOut) => {
      let changes = await guarded(() => run.after(step, call));
      const kept = new Set<string>();
      for (const change of changes ?? []) {
        const part = keepOut?.(change.path);
        if (part !== undefined) kept.add(part);
      }
      const units = [...kept];
      if (units.length > 0) changes = await guarded(() => run.putBack(step, call, units));
      // Steering files inside ignored folders, which the snapshots' changes cannot show.
      const ignored = keepOut ? await guarded(() => run.putBackIgnoredSteering(step, call)) : undefined;
      if (ignored?.changes) changes = ignored.changes;
      // What still differs from before the call was not put back (a file in a folder the call
      // made ignored differs from the snapshot's view of it, though it was put back).
      const left = units.filter(
        (unit) =>
          !ignored?.putBack.includes(unit) &&
          (changes ?? []).some((change) => change.path === unit || change.path.startsWith(`${unit}/`)),
      );
      const putBack = [
        ...new Set([...units.filter((unit) => !left.includes(unit)), ...(ignored?.putBack ?? [])]),
      ].sort();
      left.push(...(ignored?.notPutBack ?? []));
      if (!changes || (changes.length === 0 && putBack.length === 0 && left.length === 0)) return undefined;
      return {
        files: changes.slice(0, MAX_LISTED).map((change) => ({ path: change.path, change: change.change })),
        total: changes.length,
        ...(putBack.length > 0 ? { putBack } : {}),
        ...(left.length > 0 ? { notPutBack: left } : {}),
      };
    },
    end: async (step) => {
      await guarded(() => run.end(step));
    },
  };
}

export interface RunSnapshotOptions {
  settings: { enabled: boolean } & SnapshotSettings;
  home: string;
  workspace: Workspace;
  /** Runs that are not kept in the store have nothing to rewind: no snapshots. */
  persisted: boolean;
  runId: string;
  commandOnlyReads?: (command: string) => boolean;
  /** Masks the user's secrets in a text: a file it would change is never copied. */
  redact?: (text: string) => string;
  warn: (message: string) => void;
}

function settingsOf(config: SnapshotSettings): SnapshotSettings {
  return {
    maxFileBytes: config.maxFileBytes,
    maxBytesPerWorkspace: config.maxBytesPerWorkspace,
    exclude: config.exclude,
  };
}

/** The snapshot store of a workspace (its real path), with the snapshot settings of its config. */
export async function workspaceSnapshots(
  workspace: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<SnapshotStore> {
  const { config, home } = await loadConfig({ workspace, env });
  return SnapshotStore.open(home, workspace, settingsOf(config.snapshots));
}

/** The snapshots of a run, or undefined where none are taken (off, not persisted, read-only). */
export function runStepSnapshots(options: RunSnapshotOptions): StepSnapshots | undefined {
  const { settings, workspace } = options;
  if (!settings.enabled || !options.persisted || workspace.policy.readOnly) return undefined;
  let store: SnapshotStore;
  try {
    store = SnapshotStore.open(options.home, workspace.root, settingsOf(settings));
    const redact = options.redact;
    if (redact) store.withholdSecrets((bytes) => holdsSecret(bytes, redact));
  } catch (error) {
    options.warn(`workspace snapshots are off for this run: ${(error as Error).message}`);
    return undefined;
  }
  return stepSnapshots({
    store,
    runId: options.runId,
    warn: options.warn,
    ...(options.commandOnlyReads ? { commandOnlyReads: options.commandOnlyReads } : {}),
  });
}

/** Whether `bytes` (as text) hold a value `redact` masks; binary files are read as latin1 too. */
function holdsSecret(bytes: Buffer, redact: (text: string) => string): boolean {
  if (bytes.length === 0) return false;
  const text = bytes.toString("utf8");
  if (redact(text) !== text) return true;
  const raw = bytes.toString("latin1");
  return raw !== text && redact(raw) !== raw;
}
