// What the OS sandbox adds to one shell command: `true` run plainly (own process group, merged
// output) and inside bwrap (namespaces, seccomp, cgroup, the protected list's read-only mounts
// and placeholders, the disk quota's watch), alternating, after a warm-up. Prints medians (and
// min–max) in ms and the ratio. `--dist` measures another build (e.g. main's) the same way.
//   npm run build && node bench/command-sandbox.mjs [--reps 50] [--dist ../main/dist]
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { performance } from "node:perf_hooks";

const at = process.argv.indexOf("--reps");
const reps = at > 0 ? Number(process.argv[at + 1]) : 50;
const distAt = process.argv.indexOf("--dist");
const DIST = resolve(
  distAt > 0 ? process.argv[distAt + 1] : resolve(import.meta.dirname, "../dist"),
  "workspace",
);
if (!existsSync(join(DIST, "exec-sandbox/probe.js"))) {
  console.error("dist/workspace/exec-sandbox is missing: run `npm run build` first.");
  process.exit(1);
}
const { runCommand, defaultShell } = await import(join(DIST, "command.js"));
const { probeSandbox } = await import(join(DIST, "exec-sandbox/probe.js"));
const { workspacePolicy } = await import(join(DIST, "policy.js"));

const status = await probeSandbox();
console.log(status.summary);
if (status.level !== "enforced") process.exit(1);

// Under /var/tmp like a real project (not inside the sandbox's private /tmp), with a repository
// so the protected-path binds and checks are part of the cost.
const root = mkdtempSync("/var/tmp/reson-bench-");
mkdirSync(join(root, ".git/hooks"), { recursive: true });
writeFileSync(join(root, ".git/config"), "[core]\n");
writeFileSync(join(root, ".git/hooks/pre-commit.sample"), "#!/bin/sh\n");
const policy = workspacePolicy(root);
const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: process.env.HOME ?? "/root" };
const shell = defaultShell();

async function once(sandboxed) {
  const start = performance.now();
  const result = await runCommand({
    command: "true",
    cwd: root,
    env,
    shell,
    ...(sandboxed ? { sandbox: { policy, status } } : {}),
  });
  if (result.exitCode !== 0 || result.sandboxed !== sandboxed) throw new Error(JSON.stringify(result));
  return performance.now() - start;
}

const times = { plain: [], sandboxed: [] };
for (let i = 0; i < 5; i++) {
  await once(false);
  await once(true);
}
for (let i = 0; i < reps; i++) {
  times.plain.push(await once(false));
  times.sandboxed.push(await once(true));
}
rmSync(root, { recursive: true, force: true });

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
console.log(`Node ${process.version}, ${reps} runs each of \`true\`, alternating; wall ms per command`);
console.log("| run | median | min–max |");
console.log("|---|---|---|");
for (const [name, xs] of Object.entries(times)) {
  console.log(
    `| ${name} | ${median(xs).toFixed(1)} | ${Math.min(...xs).toFixed(1)}–${Math.max(...xs).toFixed(1)} |`,
  );
}
const plain = median(times.plain);
const sandboxed = median(times.sandboxed);
console.log(
  `added by the sandbox: ${(sandboxed - plain).toFixed(1)} ms (${(sandboxed / plain).toFixed(1)}×)`,
);
