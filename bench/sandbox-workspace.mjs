// What the command benches share: a build's sandbox (it must be enforced here), a throw-away
// repository under /var/tmp to run in (not the sandbox's private /tmp; its .git makes the
// protected-path binds part of the cost), and one way to run a command in it, sandboxed or not.
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";

/** Loads `<dist>/workspace` of a build and probes its sandbox; exits when it is not enforced. */
export async function sandboxWorkspace(dist) {
  const DIST = resolve(dist, "workspace");
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

  const root = mkdtempSync("/var/tmp/reson-bench-");
  mkdirSync(join(root, ".git/hooks"), { recursive: true });
  writeFileSync(join(root, ".git/config"), "[core]\n");
  writeFileSync(join(root, ".git/hooks/pre-commit.sample"), "#!/bin/sh\n");
  const policy = workspacePolicy(root);
  const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: process.env.HOME ?? "/root" };
  const shell = defaultShell();
  return {
    root,
    shell,
    /** runCommand's result for `command` in the repository, in the sandbox or plainly. */
    run: (command, sandboxed) =>
      runCommand({ command, cwd: root, env, shell, ...(sandboxed ? { sandbox: { policy, status } } : {}) }),
    remove: () => rmSync(root, { recursive: true, force: true }),
  };
}
