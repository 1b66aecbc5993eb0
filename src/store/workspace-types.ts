// Registered workspaces: folders reson works in, known by an id and a name, so a user (or a
// request to `reson serve`) can name one instead of giving a path. The folder's files stay
// where they are; only the registration lives in the store.
import type { EpochMs } from "./types.js";

export interface WorkspaceRecord {
  /** "ws_" and a ULID. */
  id: string;
  /** Unique: what `reson workspace use <name>` and `-w <name>` take. */
  name: string;
  /** The folder's real path; unique, so one folder is registered once. */
  path: string;
  /** The template it was made from ("empty", "notes", a user one); null when registered as it was. */
  template: string | null;
  /** Per-workspace settings (JSON object), kept for the workspace's own use. */
  settings: Record<string, unknown>;
  /** Whether reson made the folder (under $RESON_HOME/workspaces): only then may it delete it unasked. */
  createdByReson: boolean;
  /** The workspace reson opens when started outside any project; at most one is. */
  isDefault: boolean;
  createdAt: EpochMs;
  lastUsedAt: EpochMs | null;
}

export interface WorkspaceRepository {
  /** Registers a workspace; a name or path already registered is a ResonError "workspace_exists". */
  create(record: WorkspaceRecord): Promise<WorkspaceRecord>;
  get(id: string): Promise<WorkspaceRecord | undefined>;
  byName(name: string): Promise<WorkspaceRecord | undefined>;
  byPath(path: string): Promise<WorkspaceRecord | undefined>;
  /** The default workspace, if one is set. */
  getDefault(): Promise<WorkspaceRecord | undefined>;
  /** Most recently used first, then newest. */
  list(): Promise<WorkspaceRecord[]>;
  /** "not_found" for an unknown id, "workspace_exists" when the name is taken. */
  rename(id: string, name: string): Promise<WorkspaceRecord>;
  /** Makes it the only default workspace; "not_found" for an unknown id. */
  setDefault(id: string): Promise<WorkspaceRecord>;
  /** Replaces its settings (config values for runs in it); "not_found" for an unknown id. */
  setSettings(id: string, settings: Record<string, unknown>): Promise<WorkspaceRecord>;
  /** Records a use now (or at `at`). */
  touch(id: string, at?: EpochMs): Promise<void>;
  /** Unregisters it (its files stay); false when there was no such workspace. */
  remove(id: string): Promise<boolean>;
}
