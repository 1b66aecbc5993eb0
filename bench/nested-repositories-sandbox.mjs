// What the repositories below a workspace's root cost a sandboxed command: each one's `.git`
// and the protected list's entries it has are read-only mounts, planned at every command. Runs
// `true` in the sandbox in a single repository, in one holding 40 repositories, and in one
// holding 40 repositories with 4 protected configs each (.vscode, .husky, mise.toml,
// lefthook.yml), in turns after a warm-up; medians in ms.
//   npm run build && node bench/nested-repositories-sandbox.mjs [--reps 25]
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";

const at = process.argv.indexOf("--reps");
const reps = at > 0 ? Number(process.argv[at + 1]) : 25;
const DIST = resolve(import.meta.dirname, "../dist/workspace");
const { runCommand, defaultShell } = await import(join(DIST, "command.js"));
const { probeSandbox } = await import(join(DIST, "exec-sandbox/probe.js"));
const { workspacePolicy } = await import(join(DIST, "policy.js"));
const status = await probeSandbox();
if (status.level !== "enforced") {
  console.error(`the sandbox is not enforced here: ${status.summary}`);
  process.exit(1);
}

/** A repository holding `count` repositories, each with the 4 configs when `configs`. */
function workspace(count, configs) {
  const root = mkdtempSync("/var/tmp/reson-bench-nested-");
  mkdirSync(join(root, ".git/hooks"), { recursive: true });
  writeFileSync(join(root, ".git/config"), "[core]\n");
  for (let i = 0; i < count; i++) {
    const repo = join(root, `repo${i}`);
    mkdirSync(join(repo, ".git/hooks"), { recursive: true });
    writeFileSync(join(repo, ".git/config"), "[core]\n");
    if (!configs) continue;
    mkdirSync(join(repo, ".vscode"));
    mkdirSync(join(repo, ".husky"));
    writeFileSync(join(repo, "mise.toml"), "");
    writeFileSync(join(repo, "lefthook.yml"), "");
  }
  return root;
}

const cases = [
  ["a single repository", workspace(0, false)],
  ["40 repositories", workspace(40, false)],
  ["40 repositories, 4 configs each", workspace(40, true)],
].map(([name, root]) => ({ name, root, policy: workspacePolicy(root), times: [] }));
const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: process.env.HOME ?? "/root" };
const shell = defaultShell();

async function once(item) {
  const start = performance.now();
  const result = await runCommand({
    command: "true",
    cwd: item.root,
    env,
    shell,
    sandbox: { policy: item.policy, status },
  });
  if (result.exitCode !== 0) throw new Error(JSON.stringify(result));
  return performance.now() - start;
}

for (let i = 0; i < 3; i++) for (const item of cases) await once(item);
for (let i = 0; i < reps; i++) for (const item of cases) item.times.push(await once(item));
for (const item of cases) rmSync(item.root, { recursive: true, force: true });

const median = (xs) => {
  const sorted = [...xs].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};
console.log(
  `Node ${process.version}, ${reps} runs of \`true\` in the sandbox per workspace, in turns; wall ms`,
);
console.log("| workspace | median | min–max |");
console.log("|---|---|---|");
for (const item of cases)
  console.log(
    `| ${item.name} | ${median(item.times).toFixed(1)} | ${Math.min(...item.times).toFixed(1)}–${Math.max(...item.times).toFixed(1)} |`,
  );
