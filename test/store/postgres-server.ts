// A real PostgreSQL for the store tests: RESON_TEST_DATABASE_URL when set (its role must be
// allowed to CREATE DATABASE), else a throw-away cluster made with the machine's initdb in a
// temporary folder, listening on loopback only, removed by stop(). As root the cluster runs
// as the postgres user (PostgreSQL refuses to run as root).
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { chown, mkdtemp, open, readFile, rm } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import pg from "pg";

const run = promisify(execFile);
const PG_ROOT = "/usr/lib/postgresql";

export interface TestPostgres {
  /** What is serving: for messages. */
  description: string;
  /** A new, empty database on the server; its URL. */
  createDatabase(): Promise<string>;
  /** Drops what it made, stops a cluster it started and removes its folder. */
  stop(): Promise<void>;
}

/** One query on its own connection, for tests that look at the database from outside. */
export async function querySql<T extends pg.QueryResultRow>(url: string, text: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(text)).rows;
  } finally {
    await client.end();
  }
}

export type Availability = { available: true; how: string } | { available: false; reason: string };

/** The server binaries, PostgreSQL 15 first (what CI installs on bookworm). */
function findBinaries(): string | undefined {
  if (!existsSync(PG_ROOT)) return undefined;
  const versions = readdirSync(PG_ROOT)
    .filter((v) => existsSync(join(PG_ROOT, v, "bin/initdb")))
    .sort((a, b) => (a === "15" ? -1 : b === "15" ? 1 : Number(b) - Number(a)));
  return versions[0] === undefined ? undefined : join(PG_ROOT, versions[0], "bin");
}

export function postgresAvailability(): Availability {
  if (process.env.RESON_TEST_DATABASE_URL) return { available: true, how: "RESON_TEST_DATABASE_URL" };
  const bin = findBinaries();
  if (bin) return { available: true, how: `a throw-away cluster from ${bin}` };
  return {
    available: false,
    reason: `no RESON_TEST_DATABASE_URL and no initdb under ${PG_ROOT} (apt-get install postgresql)`,
  };
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => (typeof address === "object" && address ? resolve(address.port) : reject()));
    });
  });
}

async function connectWithin(url: string, timeoutMs: number, exited: () => string | undefined) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const client = new pg.Client({ connectionString: url });
    try {
      await client.connect();
      return client;
    } catch (error) {
      await client.end().catch(() => undefined);
      const why = exited();
      if (why !== undefined) throw new Error(`PostgreSQL exited while starting: ${why}`);
      if (Date.now() > deadline) throw error;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

/** The user a cluster runs as when we are root, and the prefix that runs a command as them. */
async function serverUser(): Promise<{ prefix: string[]; uid?: number; gid?: number }> {
  if (process.getuid?.() !== 0) return { prefix: [] };
  for (const user of ["postgres", "nobody"]) {
    try {
      const uid = Number((await run("id", ["-u", user])).stdout.trim());
      const gid = Number((await run("id", ["-g", user])).stdout.trim());
      return { prefix: ["runuser", "-u", user, "--"], uid, gid };
    } catch {
      // No such user here: try the next one.
    }
  }
  throw new Error("running as root, but there is no postgres or nobody user to run PostgreSQL as");
}

function withDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}

/** Creates and drops databases through one admin connection. */
function databases(adminUrl: string, admin: pg.Client) {
  const made: string[] = [];
  return {
    async create(): Promise<string> {
      const name = `reson_test_${process.pid}_${made.length + 1}`;
      await admin.query(`CREATE DATABASE ${name}`);
      made.push(name);
      return withDatabase(adminUrl, name);
    },
    async dropAll(): Promise<void> {
      for (const name of made) await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.end();
    },
    /** For a throw-away cluster: its folder goes whole, so nothing needs dropping. */
    close: () => admin.end(),
  };
}

export interface StartOptions {
  /** fsync and synchronous commit as a real server has them (for benchmarks); off for tests. */
  durable?: boolean;
  /** More server settings, `name=value` (benchmarks: shared_buffers). */
  settings?: string[];
}

async function startCluster(bin: string, options: StartOptions): Promise<TestPostgres> {
  const dir = await mkdtemp(join(tmpdir(), "reson-pg-"));
  const data = join(dir, "data");
  const user = await serverUser();
  if (user.uid !== undefined && user.gid !== undefined) await chown(dir, user.uid, user.gid);
  const [command = "", ...prefixArgs] = [...user.prefix, join(bin, "initdb")];
  await run(command, [
    ...prefixArgs,
    "-D",
    data,
    "-U",
    "postgres",
    "-A",
    "trust",
    "-E",
    "UTF8",
    "--locale=C",
    "--no-sync",
  ]);
  const port = await freePort();
  const log = await open(join(dir, "server.log"), "a");
  const settings = [
    "listen_addresses=127.0.0.1",
    "max_connections=200",
    ...(options.durable ? [] : ["fsync=off", "synchronous_commit=off", "full_page_writes=off"]),
    ...(options.settings ?? []),
  ];
  const serverArgs = ["-D", data, "-k", dir, "-p", String(port), ...settings.flatMap((s) => ["-c", s])];
  const [serverCommand = "", ...serverPrefix] = [...user.prefix, join(bin, "postgres")];
  const child: ChildProcess = spawn(serverCommand, [...serverPrefix, ...serverArgs], {
    stdio: ["ignore", log.fd, log.fd],
  });
  let exit: string | undefined;
  const exited = new Promise<void>((resolve) =>
    child.once("exit", (code, signal) => {
      exit = `code ${code}, signal ${signal}`;
      resolve();
    }),
  );
  // The postgres process itself (the child may be runuser), read once the server is up.
  let pid: number | undefined;
  // If the test process ends without stop(), do not leave a server behind.
  const onExit = () => {
    if (pid === undefined) return;
    try {
      process.kill(pid, "SIGQUIT");
    } catch {
      // Already gone.
    }
  };
  const adminUrl = `postgres://postgres@127.0.0.1:${port}/postgres`;
  let admin: pg.Client;
  try {
    admin = await connectWithin(adminUrl, 20_000, () =>
      exit === undefined ? undefined : `${exit}; see ${join(dir, "server.log")}`,
    );
    pid = Number((await readFile(join(data, "postmaster.pid"), "utf8")).split("\n")[0]);
    process.once("exit", onExit);
  } catch (error) {
    const text = await readFile(join(dir, "server.log"), "utf8").catch(() => "");
    child.kill("SIGKILL");
    await log.close();
    await rm(dir, { recursive: true, force: true });
    throw new Error(`${error instanceof Error ? error.message : String(error)}\n${text}`);
  }
  const dbs = databases(adminUrl, admin);
  return {
    description: `PostgreSQL from ${bin} on 127.0.0.1:${port}`,
    createDatabase: dbs.create,
    async stop() {
      // Dropping each database first would cost a checkpoint apiece (slow on a loaded machine);
      // the cluster and its folder are removed whole instead.
      await dbs.close();
      process.removeListener("exit", onExit);
      // SIGINT is PostgreSQL's fast shutdown: sessions end, the server exits cleanly.
      if (exit === undefined && pid !== undefined) process.kill(pid, "SIGINT");
      await exited;
      await log.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** A PostgreSQL to test against; throws when there is none (callers skip or fail first). */
export async function startTestPostgres(options: StartOptions = {}): Promise<TestPostgres> {
  const given = process.env.RESON_TEST_DATABASE_URL;
  if (given) {
    const admin = new pg.Client({ connectionString: given });
    await admin.connect();
    const dbs = databases(given, admin);
    return { description: "RESON_TEST_DATABASE_URL", createDatabase: dbs.create, stop: dbs.dropAll };
  }
  const bin = findBinaries();
  if (!bin) throw new Error(`PostgreSQL is needed: ${(postgresAvailability() as { reason: string }).reason}`);
  return startCluster(bin, options);
}
