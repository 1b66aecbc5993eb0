// Every process reson starts (the sandbox probe, commands, ripgrep) goes through here, so
// none outlives reson: `endChildren` ends what is still running and waits for it, and a
// last-moment `exit` hook kills whatever is left when the process exits another way.
import type { ChildProcess, SpawnOptions } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";

export interface ChildOptions extends Omit<SpawnOptions, "detached"> {
  /** Start it as the leader of a new process group (a command): the group may outlive it. */
  group?: boolean;
  /**
   * It supervises a child that must end first (bwrap and the sandbox's PID 1): stopping it
   * kills that child, so the supervisor reaps it and exits by itself, leaving no orphan.
   */
  supervisor?: boolean;
}

interface Tracked {
  child: ChildProcess;
  pid: number;
  group: boolean;
  supervisor: boolean;
  running: boolean;
  exited: Promise<void>;
}

const tracked = new Set<Tracked>();
let exitHooked = false;

function signal(pid: number, name: NodeJS.Signals | 0): boolean {
  try {
    process.kill(pid, name);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

interface ProcEntry {
  pid: number;
  ppid: number;
  pgrp: number;
  zombie: boolean;
}

/** Every process this one can see, from /proc (empty where there is no /proc). */
function processTable(): ProcEntry[] {
  let names: string[];
  try {
    names = readdirSync("/proc");
  } catch {
    return [];
  }
  const out: ProcEntry[] = [];
  for (const name of names) {
    if (name.charCodeAt(0) > 57) continue; // not a pid
    let stat: string;
    try {
      stat = readFileSync(`/proc/${name}/stat`, "utf8");
    } catch {
      continue; // gone meanwhile, or not a pid
    }
    // "pid (comm) state ppid pgrp ..."; comm may contain spaces and parentheses.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    out.push({
      pid: Number(name),
      ppid: Number(fields[1]),
      pgrp: Number(fields[2]),
      zombie: fields[0] === "Z",
    });
  }
  return out;
}

/** The direct children of `pid`. */
function childPids(pid: number): number[] {
  return processTable()
    .filter((entry) => entry.ppid === pid)
    .map((entry) => entry.pid);
}

/**
 * Whether a process of the group still runs. kill(-pgid, 0) alone also counts zombies, and
 * an orphan's zombie lingers where PID 1 is slow to reap (containers), so on Linux the
 * members are read from /proc.
 */
export function groupRunning(pgid: number): boolean {
  if (!signal(-pgid, 0)) return false;
  const table = processTable();
  if (table.length === 0) return true;
  return table.some((entry) => entry.pgrp === pgid && !entry.zombie);
}

/**
 * Stops a supervisor by killing its children (for bwrap, the sandbox's PID 1, which takes
 * its whole PID namespace with it), so it reaps them and exits; SIGKILL to its group after
 * `graceMs` if it has not.
 */
export function stopSupervisor(pid: number, graceMs = 500): Promise<void> {
  for (const inner of childPids(pid)) signal(inner, "SIGKILL");
  const entry = [...tracked].find((e) => e.pid === pid);
  if (!entry?.running) {
    signal(-pid, "SIGKILL");
    return Promise.resolve();
  }
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<void>((resolve) => {
    timer = setTimeout(() => {
      signal(-pid, "SIGKILL");
      resolve();
    }, graceMs);
  });
  return Promise.race([entry.exited, late]).finally(() => clearTimeout(timer));
}

/** SIGKILL to everything still tracked, at once: the `exit` hook cannot wait. */
function killAllNow(): void {
  for (const entry of tracked) {
    if (entry.running && entry.supervisor) for (const inner of childPids(entry.pid)) signal(inner, "SIGKILL");
    if (entry.group) signal(-entry.pid, "SIGKILL");
    else if (entry.running) signal(entry.pid, "SIGKILL");
  }
}

/** Forgets processes that are gone, and groups no process belongs to any more. */
function prune(): void {
  for (const entry of tracked) {
    if (!entry.running && (!entry.group || !signal(-entry.pid, 0))) tracked.delete(entry);
  }
}

/** `spawn`, remembered until the process (and with `group`, its whole group) is gone. */
export function spawnChild(file: string, args: readonly string[], options: ChildOptions = {}): ChildProcess {
  const { group = false, supervisor = false, ...spawnOptions } = options;
  prune();
  // Loaded at the first spawn (with net and dgram): a run whose sandbox probe is remembered
  // may start no process at all.
  const { spawn } = process.getBuiltinModule("node:child_process");
  const child = spawn(file, args, { ...spawnOptions, detached: group });
  const pid = child.pid;
  if (pid === undefined) return child; // did not start: spawn reports it as "error"
  let markExited: () => void = () => {};
  const exited = new Promise<void>((resolve) => {
    markExited = resolve;
  });
  const entry: Tracked = { child, pid, group, supervisor, running: true, exited };
  child.once("exit", () => {
    entry.running = false;
    markExited();
    if (!group) tracked.delete(entry);
  });
  tracked.add(entry);
  if (!exitHooked) {
    exitHooked = true;
    process.once("exit", killAllNow);
  }
  return child;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Ends every process reson started that is still there and waits for it: a lone process
 * (the probe, ripgrep) gets SIGKILL, a supervisor is stopped through its child, a command's
 * group gets SIGTERM and, after `graceMs`, SIGKILL. reson's own children are reaped here,
 * not left to whoever adopts orphans.
 */
export async function endChildren(graceMs = 1_000): Promise<void> {
  prune();
  const entries = [...tracked];
  if (entries.length === 0) return;
  const stopping: Promise<void>[] = [];
  for (const entry of entries) {
    if (entry.running && entry.supervisor) stopping.push(stopSupervisor(entry.pid, graceMs));
    else if (entry.group) signal(-entry.pid, "SIGTERM");
    else if (entry.running) signal(entry.pid, "SIGKILL");
  }
  const done = () => entries.every((e) => !e.running && !(e.group && groupRunning(e.pid)));
  const deadline = Date.now() + graceMs;
  while (!done() && Date.now() < deadline) await sleep(10);
  if (!done()) {
    killAllNow();
    await Promise.race([Promise.all(entries.map((e) => e.exited)), sleep(500)]);
  }
  await Promise.all(stopping);
  prune();
}
