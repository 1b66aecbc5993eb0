// How fast the disk quota stops a command that fills the disk, and by how much it overshoots:
// one process writing 1 MiB files as fast as it can, a shell loop doing the same with a process
// per file, and fallocate of 64 MiB at a time (space taken without writing), each against a
// 256 MiB quota in the sandbox, several rounds. Prints
// the write rate, the bytes left on disk past the quota and the time to the stop, as medians.
//   npm run build && node bench/disk-quota.mjs [--rounds 5]
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { performance } from "node:perf_hooks";

const at = process.argv.indexOf("--rounds");
const rounds = at > 0 ? Number(process.argv[at + 1]) : 5;
const DIST = resolve(import.meta.dirname, "../dist/workspace");
if (!existsSync(join(DIST, "disk-watch.js"))) {
  console.error("dist/workspace/disk-watch.js is missing: run `npm run build` first.");
  process.exit(1);
}
const { runCommand, defaultShell } = await import(join(DIST, "command.js"));
const { probeSandbox } = await import(join(DIST, "exec-sandbox/probe.js"));
const { workspacePolicy } = await import(join(DIST, "policy.js"));
const { DISK_SAMPLE_MS } = await import(join(DIST, "disk-watch.js"));

const status = await probeSandbox();
if (status.level !== "enforced") {
  console.error(status.summary);
  process.exit(1);
}
const MiB = 1024 ** 2;
const quota = 256 * MiB;
const writers = {
  "1 MiB files, python": `mkdir f && python3 -c "b = bytes(1 << 20)
for i in range(8192): open(f'f/{i}', 'wb').write(b)"`,
  "1 MiB files, shell loop": "mkdir f && for i in $(seq 1 8192); do head -c 1M /dev/zero > f/$i; done",
  "fallocate 64 MiB": "mkdir f && for i in $(seq 1 128); do fallocate -l 64M f/$i; done",
};

function taken(dir) {
  let bytes = 0;
  for (const name of readdirSync(dir)) bytes += statSync(join(dir, name)).blocks * 512;
  return bytes;
}

const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
console.log(`quota ${quota / MiB} MiB, a sample every ${DISK_SAMPLE_MS} ms, ${rounds} rounds; medians`);
console.log("| writer | rate MB/s | past the quota MiB | stopped after ms |");
console.log("|---|---|---|---|");
for (const [name, command] of Object.entries(writers)) {
  const rates = [];
  const past = [];
  const times = [];
  for (let round = 0; round < rounds; round++) {
    const root = mkdtempSync("/var/tmp/reson-bench-disk-");
    const policy = workspacePolicy(root, { limits: { diskBytes: quota } });
    const start = performance.now();
    const result = await runCommand({
      command,
      cwd: root,
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin" },
      shell: defaultShell(),
      timeoutMs: 120_000,
      sandbox: { policy, status },
    });
    const ms = performance.now() - start;
    const bytes = taken(join(root, "f"));
    rmSync(root, { recursive: true, force: true });
    if (result.diskLimitExceeded !== "quota")
      throw new Error(`not stopped by the quota: ${JSON.stringify(result)}`);
    rates.push(bytes / 1e6 / (ms / 1000));
    past.push((bytes - quota) / MiB);
    times.push(ms);
  }
  console.log(
    `| ${name} | ${median(rates).toFixed(0)} | ${median(past).toFixed(1)} | ${median(times).toFixed(0)} |`,
  );
}
