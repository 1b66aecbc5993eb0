// Limits on a sandboxed command, each small so the test stays quick: a fork bomb and a memory
// hog are contained by the cgroup, one big file by the file size limit, many files (or space
// taken by fallocate) by the disk quota, `yes` by the output cap, and nothing survives a
// timeout or the death of reson itself.
import { spawn } from "node:child_process";
import { readdir, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { discardSandboxLaunch, prepareSandboxedCommand } from "../../../src/workspace/exec-sandbox/launch.js";
import {
  commandEnv,
  eventually,
  type Fixture,
  makeFixture,
  noSandbox,
  processesMatching,
  status,
} from "./fixture.js";

let fx: Fixture;

beforeAll(async () => {
  fx = await makeFixture();
});
afterAll(() => fx?.cleanup());

const MiB = 1024 * 1024;
const cgroup = status.facts.pidsLimit === "cgroup";

describe.skipIf(noSandbox)("resource limits", () => {
  it.skipIf(!cgroup)("contains a fork bomb: forks past the process limit fail", async () => {
    // 200 sleepers wanted, at most 64 processes allowed; each fork is counted.
    const script = [
      "import os, time",
      "n = 0",
      "for i in range(200):",
      "    try:",
      "        if os.fork() == 0:",
      "            time.sleep(5); os._exit(0)",
      "        n += 1",
      "    except OSError:",
      "        pass",
      "print(n)",
    ].join("\n");
    await writeFile(join(fx.root, "forks.py"), script);
    const result = await fx.run("python3 forks.py", { policy: fx.policy({ limits: { pids: 64 } }) });
    const forked = Number(result.output.trim());
    expect(forked).toBeGreaterThan(10);
    expect(forked).toBeLessThan(64);
    expect(result.sandboxDenial).toBe("blocked by sandbox: process limit of 64 reached; forks were refused");
  });

  it.skipIf(!cgroup)("kills a memory hog at the memory limit", async () => {
    const result = await fx.run(
      `node -e 'const kept = []; for (let i = 0; i < 64; i++) kept.push(Buffer.alloc(4 << 20, 1)); console.log("allocated")'`,
      { policy: fx.policy({ limits: { memoryBytes: 64 * MiB } }) },
    );
    expect(result.output).not.toContain("allocated");
    expect(result.exitCode).toBe(137);
    expect(result.sandboxDenial).toBe(
      "blocked by sandbox: memory limit of 64 MiB reached; the kernel killed a process",
    );
  });

  it.skipIf(!status.facts.prlimitPath)("stops a disk fill at the file size limit", async () => {
    const result = await fx.run("head -c 10M /dev/zero > big", {
      policy: fx.policy({ limits: { fileSizeBytes: MiB } }),
    });
    expect(result.exitCode).toBe(153); // 128 + SIGXFSZ
    expect(result.sandboxDenial).toBe("blocked by sandbox: file size limit of 1 MiB reached");
    expect((await stat(join(fx.root, "big"))).size).toBe(MiB);
  });

  it("stops a disk fill of many files at the disk quota, and says so", async () => {
    const quota = 64 * MiB;
    // 2 GiB in 1 MiB files, if nothing stopped it; the file size limit alone would not.
    const result = await fx.run(
      "mkdir fill && for i in $(seq 1 2048); do head -c 1M /dev/zero > fill/$i; done; echo finished",
      {
        policy: fx.policy({ limits: { diskBytes: quota } }),
        timeoutMs: 120_000,
      },
    );
    expect(result).toMatchObject({
      diskLimitExceeded: "quota",
      exitCode: null,
      signal: "SIGKILL",
      timedOut: false,
    });
    expect(result.output).not.toContain("finished");
    expect(result.sandboxDenial).toBe(
      "blocked by sandbox: disk quota of 64 MiB reached (the command grew the disk's use by more); the command was stopped",
    );
    expect((await readdir(join(fx.root, "fill"))).length).toBeLessThan(2048);
  });

  it("stops space taken without writing (fallocate) at the disk quota", async () => {
    const result = await fx.run(
      "mkdir -p held && for i in $(seq 1 64); do fallocate -l 64M held/$i; done; echo finished",
      {
        policy: fx.policy({ limits: { diskBytes: 64 * MiB } }),
        timeoutMs: 120_000,
      },
    );
    expect(result.diskLimitExceeded).toBe("quota");
    expect(result.output).not.toContain("finished");
  });

  it("counts what a command leaves on disk, not what it writes and deletes again", async () => {
    const result = await fx.run(
      "for i in 1 2 3 4 5 6; do head -c 32M /dev/zero > scratch; rm scratch; done; echo finished",
      {
        policy: fx.policy({ limits: { diskBytes: 128 * MiB } }),
      },
    );
    expect(result).toMatchObject({ exitCode: 0, output: "finished\n" });
    expect(result.diskLimitExceeded).toBeUndefined();
  });

  it("stops `yes` at the output cap and says so", async () => {
    const result = await fx.run("yes", { policy: fx.policy({ limits: { outputBytes: 64 * 1024 } }) });
    expect(result).toMatchObject({
      outputLimitExceeded: true,
      timedOut: false,
      exitCode: null,
      signal: "SIGKILL",
    });
    expect(result.outputBytes).toBeGreaterThan(64 * 1024);
    expect(result.sandboxDenial).toBe(
      "blocked by sandbox: output limit of 64 KiB reached; the command was stopped",
    );
  });

  it.skipIf(!status.facts.prlimitPath)("limits open files", async () => {
    const result = await fx.run("ulimit -n", { policy: fx.policy({ limits: { openFiles: 256 } }) });
    expect(result.output).toBe("256\n");
  });
});

describe.skipIf(noSandbox)("nothing survives", () => {
  it("a timeout ends setsid and nohup children too", async () => {
    const result = await fx.run(
      "setsid sleep 71.301 & nohup sleep 71.302 > /dev/null 2>&1 & (trap '' TERM HUP; exec sleep 71.303) & wait",
      { timeoutMs: 500 },
    );
    expect(result.timedOut).toBe(true);
    for (const marker of ["71.301", "71.302", "71.303"]) {
      expect(await eventually(async () => (await processesMatching(marker)).length === 0)).toBe(true);
    }
  });

  it("background processes end with the command (its PID namespace goes with it)", async () => {
    const result = await fx.run("sleep 71.311 & echo started");
    expect(result.output).toBe("started\n");
    expect(await eventually(async () => (await processesMatching("71.311")).length === 0)).toBe(true);
  });

  it("an abort ends the command at once", async () => {
    const controller = new AbortController();
    const running = fx.run("sleep 71.321", { signal: controller.signal });
    expect(await eventually(async () => (await processesMatching("71.321")).length === 1)).toBe(true);
    controller.abort();
    const result = await running;
    expect(result.aborted).toBe(true);
    expect(await eventually(async () => (await processesMatching("71.321")).length === 0)).toBe(true);
  });

  it("killing reson with SIGKILL kills the sandboxed command (die-with-parent)", async () => {
    const launch = await prepareSandboxedCommand({
      policy: fx.policy(),
      status,
      command: "setsid sleep 71.331 & nohup sleep 71.332 > /dev/null 2>&1 & sleep 71.333",
      cwd: fx.root,
      env: commandEnv(),
      shell: "/bin/bash",
    });
    // A stand-in for reson: a Node process that starts the launch exactly as command.ts does.
    const agent = spawn(
      process.execPath,
      [
        "-e",
        `const { spawn } = require("node:child_process");
         const launch = JSON.parse(process.argv[1]);
         const child = spawn(launch.file, launch.args, { env: launch.env, cwd: launch.cwd, detached: true,
           stdio: ["ignore", "ignore", "ignore", "pipe"] });
         child.stdio[3].end(Buffer.from(launch.seccomp, "base64"));
         setInterval(() => {}, 1000);`,
        JSON.stringify({ ...launch, cwd: fx.root, seccomp: launch.seccomp.toString("base64") }),
      ],
      { stdio: "ignore" },
    );
    try {
      const started = await eventually(async () => (await processesMatching("71.333")).length === 1);
      expect(started).toBe(true);
      agent.kill("SIGKILL");
      for (const marker of ["71.331", "71.332", "71.333"]) {
        expect(await eventually(async () => (await processesMatching(marker)).length === 0)).toBe(true);
      }
    } finally {
      agent.kill("SIGKILL");
      await discardSandboxLaunch(launch);
    }
  });
});
