// A user at a shell, for README's blocks: a fresh home folder (so ~/.reson is new), a project
// folder to work in, `reson` on PATH as `npm link` would put it there, and the few settings a
// careful user has: curl fails on an HTTP error (~/.curlrc: fail-with-body) and npm stays off
// the network unless a scenario gives it a registry (~/.npmrc).
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join, resolve } from "node:path";
import { cleanEnv } from "../support/cli.js";
import type { FakeModelServer } from "../support/fake-model-server.js";

export const REPO = resolve(import.meta.dirname, "../..");

export interface ReadmeUser {
  /** $HOME. */
  readonly home: string;
  /** The folder the shell starts in (a project: not the home folder, not above it). */
  readonly work: string;
  /** The environment every block's shell starts with. */
  readonly env: NodeJS.ProcessEnv;
  /** Where what the test makes for itself goes (logs, packages), outside home and work. */
  readonly scratch: string;
  remove(): void;
}

/**
 * `harness`: the variables that point reson at the test's own services (the fake model
 * server, for one): the only difference from a user's shell that the block does not show.
 */
export function readmeUser(harness: Record<string, string> = {}): ReadmeUser {
  const root = mkdtempSync(join(tmpdir(), "reson-readme-"));
  const home = join(root, "home");
  const work = join(root, "work");
  const bin = join(root, "bin");
  const scratch = join(root, "scratch");
  for (const dir of [home, work, bin, scratch]) mkdirSync(dir);
  const reson = join(bin, "reson");
  writeFileSync(reson, `#!/bin/sh\nexec "${process.execPath}" "${join(REPO, "bin/reson.js")}" "$@"\n`);
  chmodSync(reson, 0o755);
  writeFileSync(join(home, ".curlrc"), "fail-with-body\n");
  writeFileSync(join(home, ".npmrc"), "offline=true\nupdate-notifier=false\naudit=false\nfund=false\n");
  const env = cleanEnv({
    HOME: home,
    PATH: [bin, process.env.PATH ?? "/usr/bin:/bin"].join(delimiter),
    ...harness,
  });
  delete env.PWD;
  delete env.OLDPWD;
  // What npm or npx set for the test run itself (npm_config_registry, npm_config_prefix, …) is
  // not in a user's shell: their npm reads their ~/.npmrc. The machine's own Node set-up stays
  // (npm_config_nodedir, from .ci/use-node.sh: native addons build against its headers).
  for (const name of Object.keys(env))
    if (/^npm_/i.test(name) && name !== "npm_config_nodedir" && !(name in harness)) delete env[name];
  return {
    home,
    work,
    env,
    scratch,
    remove: () => rmSync(root, { recursive: true, force: true, maxRetries: 3 }),
  };
}

/** The harness variables for a block that names no provider: the fake server, as a local model. */
export function localModel(server: FakeModelServer, model = "fake-model"): Record<string, string> {
  return { RESON_PROVIDER: "openai-compatible", RESON_BASE_URL: server.openaiBaseUrl, RESON_MODEL: model };
}

/**
 * The harness variables for a block that exports ANTHROPIC_API_KEY: the fake server's Anthropic
 * API. RESON_PROVIDER too, since a base URL without a provider means an OpenAI-compatible server.
 */
export function anthropicAt(server: FakeModelServer): Record<string, string> {
  return { RESON_PROVIDER: "anthropic", RESON_BASE_URL: server.anthropicBaseUrl };
}
