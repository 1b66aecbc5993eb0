// What a run's having read untrusted content adds to one sandboxed command: `true` in a Node and
// Python project (node_modules with a few packages, a .venv), run with the trusted run's
// protection ("executes") and with the untrusted run's ("steers" and "installs" too: instruction
// files, node_modules read-only with its caches on private tmpfs, the venv's bin, lib and
// pyvenv.cfg), alternating, after a warm-up. Prints medians (and min–max) in ms.
//   npm run build && node bench/untrusted-command.mjs [--reps 50] [--dist ../main/dist]
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { performance } from "node:perf_hooks";

const at = process.argv.indexOf("--reps");
const reps = at > 0 ? Number(process.argv[at + 1]) : 50;
const distAt = process.argv.indexOf("--dist");
const dist = resolve(
  distAt > 0 ? process.argv[distAt + 1] : resolve(import.meta.dirname, "../dist"),
  "workspace",
);
const { runCommand, defaultShell } = await import(join(dist, "command.js"));
const { probeSandbox } = await import(join(dist, "exec-sandbox/probe.js"));
const { workspacePolicy, withProtectedKinds } = await import(join(dist, "policy.js"));
const { UNTRUSTED_PROTECTED_KINDS } = await import(join(dist, "protected-list.js"));

const status = await probeSandbox();
console.log(status.summary);
if (status.level !== "enforced") process.exit(1);

const root = mkdtempSync("/var/tmp/reson-bench-");
const files = {
  ".git/config": "[core]\n",
  "package.json": '{"name":"app"}\n',
  ".venv/pyvenv.cfg": "home = /usr/bin\n",
  ".venv/bin/python": "#!/bin/sh\n",
  ".venv/lib/python3.11/site-packages/x.py": "\n",
};
for (const name of ["react", "left-pad", "vite", "vitest"]) files[`node_modules/${name}/index.js`] = "\n";
for (const [path, content] of Object.entries(files)) {
  mkdirSync(join(root, path, ".."), { recursive: true });
  writeFileSync(join(root, path), content);
}
const trusted = workspacePolicy(root);
const untrusted = withProtectedKinds(trusted, UNTRUSTED_PROTECTED_KINDS);
const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: process.env.HOME ?? "/root" };
const shell = defaultShell();

async function once(policy) {
  const start = performance.now();
  const result = await runCommand({ command: "true", cwd: root, env, shell, sandbox: { policy, status } });
  if (result.exitCode !== 0) throw new Error(JSON.stringify(result));
  return performance.now() - start;
}

const times = { trusted: [], untrusted: [] };
for (let i = 0; i < 5; i++) {
  await once(trusted);
  await once(untrusted);
}
for (let i = 0; i < reps; i++) {
  times.trusted.push(await once(trusted));
  times.untrusted.push(await once(untrusted));
}
rmSync(root, { recursive: true, force: true });

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
console.log(
  `Node ${process.version}, ${reps} runs each of sandboxed \`true\`, alternating; wall ms per command`,
);
console.log("| run | median | min–max |");
console.log("|---|---|---|");
for (const [name, xs] of Object.entries(times))
  console.log(
    `| ${name} | ${median(xs).toFixed(1)} | ${Math.min(...xs).toFixed(1)}–${Math.max(...xs).toFixed(1)} |`,
  );
console.log(`untrusted − trusted: ${(median(times.untrusted) - median(times.trusted)).toFixed(1)} ms`);
