// The placeholder registry's lock across processes: a dead holder's lock and one whose pid now
// names another process are broken, a live holder is waited for, of two processes breaking the
// same stale lock exactly one holds it, and letting go never removes another holder's lock.
// The other processes are real: node running the built module (dist).
import { type ChildProcess, spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { link, lstat, mkdir, mkdtemp, readdir, rm, unlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { clearOrphanedPlaceholders } from "../../../src/workspace/exec-sandbox/placeholder-registry.js";
import {
  newClaim,
  ownStartTime,
  processStart,
  releaseLock,
  takeLock,
} from "../../../src/workspace/exec-sandbox/registry-lock.js";

const MODULE = join(import.meta.dirname, "../../../dist/workspace/exec-sandbox/registry-lock.js");

let folder: string;
beforeEach(async () => {
  folder = await mkdtemp(join(tmpdir(), "reson-lock-"));
});
afterEach(async () => {
  await rm(folder, { recursive: true, force: true });
});

/** A pid that ran and has ended (reaped). */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ["-e", ""]);
  await new Promise((resolve) => child.on("exit", resolve));
  return child.pid!;
}

/** Makes `lock` a lock held by the claim `lock.<pid>-<start>-<nonce>`, as a holder would. */
async function plantLock(pid: number, start: string, nonce = "planted"): Promise<string> {
  const claim = join(folder, `lock.${pid}-${start}-${nonce}`);
  await writeFile(claim, "");
  await link(claim, join(folder, "lock"));
  return claim;
}

async function sameFile(a: string, b: string): Promise<boolean> {
  return (await lstat(a)).ino === (await lstat(b)).ino;
}

/** A node process running `body` with `lock` (the built module) and `folder` in scope; lines in and out. */
function child(body: string): {
  process: ChildProcess;
  lines: AsyncIterator<string>;
  send(line: string): void;
} {
  const script = `
    const lock = await import(${JSON.stringify(MODULE)});
    const folder = ${JSON.stringify(folder)};
    const input = (await import("node:readline")).createInterface({ input: process.stdin });
    const next = input[Symbol.asyncIterator]();
    const say = (line) => process.stdout.write(line + "\\n");
    ${body}
    input.close();`;
  const proc = spawn(process.execPath, ["--input-type=module", "-e", script], {
    stdio: ["pipe", "pipe", "inherit"],
  });
  const reader = (async function* () {
    let buffer = "";
    for await (const chunk of proc.stdout!) {
      buffer += String(chunk);
      let end = buffer.indexOf("\n");
      while (end >= 0) {
        yield buffer.slice(0, end);
        buffer = buffer.slice(end + 1);
        end = buffer.indexOf("\n");
      }
    }
  })();
  return { process: proc, lines: reader, send: (line) => proc.stdin!.write(`${line}\n`) };
}

async function nextLine(lines: AsyncIterator<string>): Promise<string> {
  const { value, done } = await lines.next();
  if (done) throw new Error("the child ended before answering");
  return value;
}

describe("the placeholder registry's lock", () => {
  it("is broken when its holder died", async () => {
    await plantLock(await deadPid(), "1");
    const held = await takeLock(folder);
    expect(await sameFile(held.claim, join(folder, "lock"))).toBe(true);
    expect(releaseLock(held)).toBe(true);
    expect(await readdir(folder)).toEqual([]);
  });

  it("is broken when its pid runs but is another process (start time differs)", async () => {
    const start = processStart(process.pid)!;
    expect(start).toBe(ownStartTime());
    await plantLock(process.pid, String(Number(start) + 1));
    const held = await takeLock(folder);
    expect(await sameFile(held.claim, join(folder, "lock"))).toBe(true);
    expect(releaseLock(held)).toBe(true);
  });

  it("is waited for while its holder lives, then taken", async () => {
    const holder = child(`
      const held = await lock.takeLock(folder);
      say("held");
      await next.next();
      await (await import("node:fs/promises")).writeFile(folder + "/released-by-holder", "");
      say(String(lock.releaseLock(held)));`);
    expect(await nextLine(holder.lines)).toBe("held");
    const taking = takeLock(folder);
    // Give this process's attempts time to find the lock held (and wrongly break it, if they would).
    await new Promise((resolve) => setTimeout(resolve, 150));
    holder.send("release");
    const held = await taking;
    expect(existsSync(join(folder, "released-by-holder"))).toBe(true);
    expect(await nextLine(holder.lines)).toBe("true");
    expect(releaseLock(held)).toBe(true);
  });

  it("of two processes breaking the same stale lock at once, exactly one takes it", async () => {
    const rounds = 4;
    const racers = [0, 1].map(() =>
      child(`
        for (let round = 0; round < ${rounds}; round += 1) {
          const claim = lock.newClaim(folder);
          say("ready");
          await next.next();
          say(String(lock.tryTakeLock(claim)));
        }`),
    );
    for (let round = 0; round < rounds; round += 1) {
      await rm(join(folder, "lock"), { force: true });
      for (const name of await readdir(folder)) await unlink(join(folder, name));
      await plantLock(await deadPid(), "1", `round${round}`);
      for (const racer of racers) expect(await nextLine(racer.lines)).toBe("ready");
      for (const racer of racers) racer.send("go");
      const won = await Promise.all(racers.map((racer) => nextLine(racer.lines)));
      expect(won.filter((answer) => answer === "true")).toHaveLength(1);
    }
    await Promise.all(racers.map((racer) => new Promise((resolve) => racer.process.on("exit", resolve))));
  });

  it("lets go only of its own lock", async () => {
    const held = await takeLock(folder);
    // Someone else's lock in its place (as if this one had been wrongly broken and taken).
    await unlink(join(folder, "lock"));
    const other = await plantLock(process.pid, ownStartTime(), "other");
    expect(releaseLock(held)).toBe(false);
    expect(await sameFile(other, join(folder, "lock"))).toBe(true);
    expect(existsSync(held.claim)).toBe(false);
  });

  it("makes a claim named for this process's pid and start time", () => {
    const { claim } = newClaim(folder);
    expect(claim.startsWith(join(folder, `lock.${process.pid}-${ownStartTime()}-`))).toBe(true);
  });
});

describe("the placeholder registry", () => {
  it("takes a registration whose pid now names another process for a dead one's", async () => {
    const root = join(folder, "root");
    await mkdir(join(root, "gone"), { recursive: true });
    await mkdir(join(root, "kept"), { recursive: true });
    // Where the registry keeps the workspace's registrations (as placeholder-registry.ts names it).
    const key = createHash("sha256").update(root).digest("hex").slice(0, 24);
    const registry = join(tmpdir(), `reson-placeholders-${process.getuid?.()}`, key);
    await mkdir(registry, { recursive: true });
    try {
      const start = ownStartTime();
      await writeFile(
        join(registry, `${process.pid}-${Number(start) + 1}.1`),
        JSON.stringify([join(root, "gone")]),
      );
      await writeFile(join(registry, `${process.pid}-${start}.2`), JSON.stringify([join(root, "kept")]));
      await clearOrphanedPlaceholders(root);
      expect(existsSync(join(root, "gone"))).toBe(false);
      expect(existsSync(join(root, "kept"))).toBe(true);
      expect(await readdir(registry)).toEqual([`${process.pid}-${start}.2`]);
    } finally {
      await rm(registry, { recursive: true, force: true });
    }
  });
});
