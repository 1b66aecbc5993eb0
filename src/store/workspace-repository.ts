// The workspaces table behind WorkspaceRepository, for both backends. Uniqueness of names,
// paths and of the one default is the database's (unique indexes), so two processes
// registering the same folder at once cannot both succeed.
import { ResonError } from "../core/errors.js";
import { type Statement, StatementFailed } from "./driver.js";
import {
  columnList,
  fromRow,
  patchToColumns,
  type Row,
  type SqlValue,
  type Table,
  toRow,
} from "./records.js";
import type { EpochMs, WorkspaceRecord, WorkspaceRepository } from "./types.js";

interface WorkspaceRow {
  id: string;
  name: string;
  path: string;
  template: string | null;
  settings: Record<string, unknown>;
  createdByReson: number;
  isDefault: number;
  createdAt: EpochMs;
  lastUsedAt: EpochMs | null;
}

const WORKSPACES: Table<WorkspaceRow> = {
  name: "workspaces",
  fields: {
    id: ["id", "text"],
    name: ["name", "text"],
    path: ["path", "text"],
    template: ["template", "text?"],
    settings: ["settings", "json"],
    createdByReson: ["created_by_reson", "int"],
    isDefault: ["is_default", "int"],
    createdAt: ["created_at", "int"],
    lastUsedAt: ["last_used_at", "int?"],
  },
};

const SELECT = `SELECT ${columnList(WORKSPACES)} FROM workspaces`;

function toRecord(row: WorkspaceRow): WorkspaceRecord {
  return { ...row, createdByReson: row.createdByReson === 1, isDefault: row.isDefault === 1 };
}

function fromRecord(record: WorkspaceRecord): WorkspaceRow {
  return { ...record, createdByReson: record.createdByReson ? 1 : 0, isDefault: record.isDefault ? 1 : 0 };
}

export function workspaceNotFound(what: string): ResonError {
  return new ResonError("not_found", `No workspace ${what} is registered.`, {
    hint: "`reson workspace list` shows the registered workspaces (GET /workspaces in reson serve); `reson workspace create <name>` makes one.",
  });
}

export function workspaceNameTaken(name: string, existing: WorkspaceRecord): ResonError {
  return new ResonError(
    "workspace_exists",
    `A workspace named ${name} is already registered (${existing.path}).`,
    {
      hint: "Choose another name, or `reson workspace rename` the existing one first.",
      details: { name, id: existing.id },
    },
  );
}

export function workspacePathTaken(path: string, existing: WorkspaceRecord): ResonError {
  return new ResonError(
    "workspace_exists",
    `The folder ${path} is already registered as workspace ${existing.name}.`,
    {
      hint: `Use it by its name (-w ${existing.name}), or \`reson workspace remove ${existing.name}\` first.`,
      details: { path, id: existing.id, name: existing.name },
    },
  );
}

export function workspaceRepository(context: {
  query: (sql: string, params: SqlValue[]) => Promise<Row[]>;
  /** All or nothing; a failing statement throws StatementFailed. */
  transact: (statements: readonly Statement[]) => Promise<number[]>;
}): WorkspaceRepository {
  const { query, transact } = context;
  const one = async (where: string, params: SqlValue[]) => {
    const [row] = await query(`${SELECT} ${where}`, params);
    return row ? toRecord(fromRow(WORKSPACES, row)) : undefined;
  };
  const byName = (name: string) => one("WHERE name = ?", [name]);
  const byPath = (path: string) => one("WHERE path = ?", [path]);
  const get = (id: string) => one("WHERE id = ?", [id]);
  const required = async (id: string) => {
    const found = await get(id);
    if (!found) throw workspaceNotFound(id);
    return found;
  };
  /** Runs the statements; a duplicate is put in words by `explain`. */
  const write = async (statements: Statement[], explain: () => Promise<ResonError | undefined>) => {
    try {
      await transact(statements);
    } catch (error) {
      if (!(error instanceof StatementFailed)) throw error;
      if (error.reason === "duplicate") {
        const known = await explain();
        if (known) throw known;
      }
      throw new ResonError("store_unavailable", `Saving the workspace failed: ${error.message}`, {
        hint: "Try again; if it keeps failing, check the database (reson doctor).",
        cause: error.cause,
      });
    }
  };

  return {
    create: async (record) => {
      const { columns, values } = toRow(WORKSPACES, fromRecord(record));
      const placeholders = columns.map(() => "?").join(", ");
      const statements: Statement[] = [];
      if (record.isDefault)
        statements.push({ sql: "UPDATE workspaces SET is_default = 0 WHERE is_default = 1", params: [] });
      statements.push({
        sql: `INSERT INTO workspaces (${columns.join(", ")}) VALUES (${placeholders})`,
        params: values,
      });
      await write(statements, async () => {
        const sameName = await byName(record.name);
        if (sameName) return workspaceNameTaken(record.name, sameName);
        const samePath = await byPath(record.path);
        if (samePath) return workspacePathTaken(record.path, samePath);
        return undefined;
      });
      return record;
    },
    get,
    byName,
    byPath,
    getDefault: () => one("WHERE is_default = 1", []),
    list: async () => {
      const rows = await query(
        `${SELECT} ORDER BY COALESCE(last_used_at, created_at) DESC, created_at DESC, id DESC`,
        [],
      );
      return rows.map((row) => toRecord(fromRow(WORKSPACES, row)));
    },
    rename: async (id, name) => {
      const current = await required(id);
      if (current.name === name) return current;
      await write(
        [{ sql: "UPDATE workspaces SET name = ? WHERE id = ?", params: [name, id], mustChangeOne: true }],
        async () => {
          const sameName = await byName(name);
          return sameName ? workspaceNameTaken(name, sameName) : undefined;
        },
      );
      return required(id);
    },
    setDefault: async (id) => {
      await required(id);
      await write(
        [
          { sql: "UPDATE workspaces SET is_default = 0 WHERE is_default = 1 AND id <> ?", params: [id] },
          { sql: "UPDATE workspaces SET is_default = 1 WHERE id = ?", params: [id], mustChangeOne: true },
        ],
        async () => undefined,
      );
      return required(id);
    },
    setSettings: async (id, settings) => {
      await required(id);
      const { columns, values } = patchToColumns(WORKSPACES, { settings }, ["settings"]);
      await write(
        [
          {
            sql: `UPDATE workspaces SET ${columns.map((c) => `${c} = ?`).join(", ")} WHERE id = ?`,
            params: [...values, id],
            mustChangeOne: true,
          },
        ],
        async () => undefined,
      );
      return required(id);
    },
    touch: async (id, at = Date.now()) => {
      await query("UPDATE workspaces SET last_used_at = ? WHERE id = ?", [at, id]);
    },
    remove: async (id) => {
      const [changed = 0] = await transact([{ sql: "DELETE FROM workspaces WHERE id = ?", params: [id] }]);
      return changed > 0;
    },
  };
}
