// What the OS sandbox adds to one shell command: `true` run plainly (own process group, merged
// output) and inside bwrap (namespaces, seccomp, cgroup, the protected list's read-only mounts
// and placeholders, the disk quota's watch), alternating, after a warm-up. Prints medians (and
// min–max) in ms and the ratio. `--dist` measures another build (e.g. main's) the same way.
//   npm run build && node bench/command-sandbox.mjs [--reps 50] [--dist ../main/dist]
import { resolve } from "node:path";
import { performance } from "node:perf_hooks";
import { sandboxWorkspace } from "./sandbox-workspace.mjs";

const at = process.argv.indexOf("--reps");
const reps = at > 0 ? Number(process.argv[at + 1]) : 50;
const distAt = process.argv.indexOf("--dist");
const dist = distAt > 0 ? process.argv[distAt + 1] : resolve(import.meta.dirname, "../dist");
const workspace = await sandboxWorkspace(dist);

async function once(sandboxed) {
  const start = performance.now();
  const result = await workspace.run("true", sandboxed);
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
workspace.remove();

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
