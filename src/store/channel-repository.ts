// The channel tables behind ChannelRepository, for both backends. A delivery is stored once by
// the unique (channel, dedupe_key); every change of a message's status is a conditional update,
// so of several serve processes exactly one moves it, and a claim to send that went silent (a
// crash mid-send) is taken over after a while, so no answer is lost.
import { type Kind, NOW_MS } from "./lease.js";
import { columnList, fromRow, type Row, type SqlValue, type Table, toRow } from "./records.js";
import type {
  ChannelRepository,
  ChannelSessionRecord,
  InboundRecord,
  InboundStatus,
  PairingRecord,
} from "./types.js";

const INBOUND: Table<InboundRecord> = {
  name: "channel_inbound",
  fields: {
    id: ["id", "text"],
    channel: ["channel", "text"],
    dedupeKey: ["dedupe_key", "text"],
    chatKey: ["chat_key", "text"],
    message: ["message", "json"],
    status: ["status", "text"],
    runId: ["run_id", "text?"],
    reply: ["reply", "text?"],
    note: ["note", "text?"],
    claimedAt: ["claimed_at", "int?"],
    createdAt: ["created_at", "int"],
    updatedAt: ["updated_at", "int"],
  },
};

const SESSIONS: Table<ChannelSessionRecord> = {
  name: "channel_sessions",
  fields: {
    channel: ["channel", "text"],
    chatKey: ["chat_key", "text"],
    sessionId: ["session_id", "text"],
    createdAt: ["created_at", "int"],
  },
};

const PAIRINGS: Table<PairingRecord> = {
  name: "channel_pairings",
  fields: {
    channel: ["channel", "text"],
    senderId: ["sender_id", "text"],
    senderName: ["sender_name", "text?"],
    code: ["code", "text?"],
    status: ["status", "text"],
    role: ["role", "text"],
    createdAt: ["created_at", "int"],
    expiresAt: ["expires_at", "int?"],
    approvedAt: ["approved_at", "int?"],
  },
};

const OPEN: readonly InboundStatus[] = ["received", "queued", "reply", "sending"];

function insert<R>(table: Table<R>, record: R, conflict: string): { sql: string; params: SqlValue[] } {
  const { columns, values } = toRow(table, record);
  return {
    sql: `INSERT INTO ${table.name} (${columns.join(", ")}) VALUES (${columns.map(() => "?").join(", ")}) ${conflict}`,
    params: values,
  };
}

export function channelRepository(context: {
  kind: Kind;
  query: (sql: string, params: SqlValue[]) => Promise<Row[]>;
}): ChannelRepository {
  const { query } = context;
  const now = NOW_MS[context.kind];
  const inbound = `SELECT ${columnList(INBOUND)} FROM channel_inbound`;
  const readInbound = (rows: Row[]) => rows.map((row) => fromRow(INBOUND, row));
  const readPairing = (rows: Row[]) => rows.map((row) => fromRow(PAIRINGS, row));
  const getInbound = async (id: string) => readInbound(await query(`${inbound} WHERE id = ?`, [id]))[0];

  return {
    async receive(input) {
      const at = Date.now();
      const record: InboundRecord = {
        ...input,
        status: "received",
        runId: null,
        reply: null,
        note: null,
        claimedAt: null,
        createdAt: at,
        updatedAt: at,
      };
      const { sql, params } = insert(
        INBOUND,
        record,
        "ON CONFLICT (channel, dedupe_key) DO NOTHING RETURNING id",
      );
      const created = (await query(sql, params)).length === 1;
      if (created) return { record, created };
      const [stored] = readInbound(
        await query(`${inbound} WHERE channel = ? AND dedupe_key = ?`, [input.channel, input.dedupeKey]),
      );
      if (!stored) throw new Error(`channel_inbound ${input.channel}/${input.dedupeKey} vanished`);
      return { record: stored, created: false };
    },
    getInbound,
    async listOpen(channel) {
      const marks = OPEN.map(() => "?").join(", ");
      const rows = channel
        ? await query(`${inbound} WHERE status IN (${marks}) AND channel = ? ORDER BY created_at, id`, [
            ...OPEN,
            channel,
          ])
        : await query(`${inbound} WHERE status IN (${marks}) ORDER BY created_at, id`, [...OPEN]);
      return readInbound(rows);
    },
    async listInbound(channel, limit) {
      return readInbound(
        await query(`${inbound} WHERE channel = ? ORDER BY created_at DESC, id DESC LIMIT ?`, [
          channel,
          limit,
        ]),
      );
    },
    async transition(id, from, to, patch = {}, staleMs) {
      const sets = ["status = ?", "updated_at = ?"];
      const params: SqlValue[] = [to, Date.now()];
      if (patch.runId !== undefined) {
        sets.push("run_id = ?");
        params.push(patch.runId);
      }
      if (patch.reply !== undefined) {
        sets.push("reply = ?");
        params.push(patch.reply);
      }
      if (patch.note !== undefined) {
        sets.push("note = ?");
        params.push(patch.note);
      }
      sets.push(to === "sending" ? `claimed_at = ${now}` : "claimed_at = NULL");
      let where = "id = ? AND status = ?";
      params.push(id, from);
      if (from === "sending" && staleMs !== undefined) {
        where += ` AND claimed_at <= ${now} - ?`;
        params.push(staleMs);
      }
      const rows = await query(
        `UPDATE channel_inbound SET ${sets.join(", ")} WHERE ${where} RETURNING id`,
        params,
      );
      return rows.length === 1;
    },

    async sessionFor(channel, chatKey) {
      const rows = await query(
        `SELECT ${columnList(SESSIONS)} FROM channel_sessions WHERE channel = ? AND chat_key = ?`,
        [channel, chatKey],
      );
      return rows[0] ? fromRow(SESSIONS, rows[0]) : undefined;
    },
    async bindSession(record) {
      const { sql, params } = insert(SESSIONS, record, "ON CONFLICT (channel, chat_key) DO NOTHING");
      await query(sql, params);
      const rows = await query(
        `SELECT ${columnList(SESSIONS)} FROM channel_sessions WHERE channel = ? AND chat_key = ?`,
        [record.channel, record.chatKey],
      );
      return rows[0] ? fromRow(SESSIONS, rows[0]) : record;
    },
    async unbindSession(channel, chatKey) {
      await query("DELETE FROM channel_sessions WHERE channel = ? AND chat_key = ?", [channel, chatKey]);
    },
    async listSessions(channel) {
      const rows = await query(
        `SELECT ${columnList(SESSIONS)} FROM channel_sessions WHERE channel = ? ORDER BY created_at`,
        [channel],
      );
      return rows.map((row) => fromRow(SESSIONS, row));
    },

    async pairingOf(channel, senderId) {
      return readPairing(
        await query(
          `SELECT ${columnList(PAIRINGS)} FROM channel_pairings WHERE channel = ? AND sender_id = ?`,
          [channel, senderId],
        ),
      )[0];
    },
    async putPairing(record) {
      const { sql, params } = insert(
        PAIRINGS,
        record,
        `ON CONFLICT (channel, sender_id) DO UPDATE SET code = excluded.code, sender_name = excluded.sender_name,
          created_at = excluded.created_at, expires_at = excluded.expires_at
          WHERE channel_pairings.status = 'pending'`,
      );
      await query(sql, params);
    },
    async approvePairing(channel, code, role, at) {
      const rows = await query(
        `UPDATE channel_pairings SET status = 'approved', role = ?, code = NULL, expires_at = NULL, approved_at = ?
          WHERE channel = ? AND code = ? AND status = 'pending' AND expires_at > ?
          RETURNING ${columnList(PAIRINGS)}`,
        [role, at, channel, code, at],
      );
      return readPairing(rows)[0];
    },
    async denyPairing(channel, codeOrSender) {
      const rows = await query(
        `UPDATE channel_pairings SET status = 'denied', code = NULL, expires_at = NULL
          WHERE channel = ? AND status = 'pending' AND (code = ? OR sender_id = ?)
          RETURNING ${columnList(PAIRINGS)}`,
        [channel, codeOrSender, codeOrSender],
      );
      return readPairing(rows)[0];
    },
    async listPairings(channel) {
      const select = `SELECT ${columnList(PAIRINGS)} FROM channel_pairings`;
      const rows = channel
        ? await query(`${select} WHERE channel = ? ORDER BY created_at`, [channel])
        : await query(`${select} ORDER BY channel, created_at`, []);
      return readPairing(rows);
    },
    async removePairing(channel, senderId) {
      const rows = await query(
        "DELETE FROM channel_pairings WHERE channel = ? AND sender_id = ? RETURNING sender_id",
        [channel, senderId],
      );
      return rows.length > 0;
    },
    async deleteExpiredPairings(channel, expiredBefore) {
      const rows = await query(
        `DELETE FROM channel_pairings WHERE channel = ? AND status = 'pending' AND expires_at < ?
          RETURNING sender_id`,
        [channel, expiredBefore],
      );
      return rows.map((row) => String(row.sender_id));
    },

    async getState(channel, key) {
      const [row] = await query("SELECT value FROM channel_state WHERE channel = ? AND key = ?", [
        channel,
        key,
      ]);
      return row ? String(row.value) : undefined;
    },
    async setState(channel, key, value) {
      await query(
        `INSERT INTO channel_state (channel, key, value) VALUES (?, ?, ?)
          ON CONFLICT (channel, key) DO UPDATE SET value = excluded.value`,
        [channel, key, value],
      );
    },
    async claimState(channel, key, value) {
      const rows = await query(
        "INSERT INTO channel_state (channel, key, value) VALUES (?, ?, ?) ON CONFLICT (channel, key) DO NOTHING RETURNING key",
        [channel, key, value],
      );
      return rows.length === 1;
    },
    async replaceState(channel, key, expected, value) {
      const rows = await query(
        "UPDATE channel_state SET value = ? WHERE channel = ? AND key = ? AND value = ? RETURNING key",
        [value, channel, key, expected],
      );
      return rows.length === 1;
    },
    async deleteState(channel, key) {
      await query("DELETE FROM channel_state WHERE channel = ? AND key = ?", [channel, key]);
    },
    async listState(channel, prefix) {
      // substr, not LIKE: the prefix is matched as it is, whatever characters it holds.
      const rows = await query(
        "SELECT key, value FROM channel_state WHERE channel = ? AND substr(key, 1, ?) = ? ORDER BY key",
        [channel, prefix.length, prefix],
      );
      return rows.map((row) => ({ key: String(row.key), value: String(row.value) }));
    },
  };
}
