// Installing plugin packages with the npm the user already has, into a prefix of reson's own
// ($RESON_HOME/plugins, or <workspace>/.reson/plugins): `--ignore-scripts`, so installing runs
// none of a package's code, and `--omit=dev`, as pi does. npm's JSON output says where the
// package landed; the prefix's package.json says it when npm had nothing to change.
import { constants } from "node:fs";
import { access, mkdir, readFile, realpath, writeFile } from "node:fs/promises";
import { basename, delimiter, isAbsolute, join, relative, resolve } from "node:path";
import { ResonError } from "../core/errors.js";
import { spawnChild } from "../workspace/index.js";
import type { PluginSpec } from "./install-spec.js";

/** The flags of every install: no package code runs, no dev dependencies, no network chatter. */
const INSTALL_FLAGS = ["--omit=dev", "--ignore-scripts", "--no-audit", "--no-fund"];
/** npm's output can be long (a failing git clone); the tail is what says why. */
const MAX_OUTPUT_CHARS = 256 * 1024;

export interface NpmCommand {
  file: string;
  /** Arguments before npm's own (the npm-cli.js script, when npm runs through node). */
  prefixArgs: string[];
}

async function executable(path: string): Promise<boolean> {
  return access(path, constants.X_OK).then(
    () => true,
    () => false,
  );
}

/** The user's npm: the one running us (`npm_execpath`), else `npm` on PATH. */
export async function findNpm(env: NodeJS.ProcessEnv = process.env): Promise<NpmCommand> {
  const execPath = env.npm_execpath;
  // pnpm and yarn set npm_execpath too; their install flags differ, so only npm's is taken.
  if (execPath && /npm/i.test(basename(execPath)) && !/pnpm/i.test(basename(execPath))) {
    if (/\.(c|m)?js$/.test(execPath)) return { file: process.execPath, prefixArgs: [execPath] };
    if (await executable(execPath)) return { file: execPath, prefixArgs: [] };
  }
  const names = process.platform === "win32" ? ["npm.cmd", "npm.exe"] : ["npm"];
  for (const dir of (env.PATH ?? "").split(delimiter)) {
    if (!dir) continue;
    for (const name of names) {
      const path = join(dir, name);
      if (await executable(path)) return { file: path, prefixArgs: [] };
    }
  }
  throw new ResonError("plugin_failed", "reson installs npm plugins with npm, and found no npm.", {
    hint: "npm comes with Node.js: install Node.js 22 or later (or put npm on PATH), or add the plugin from a folder.",
  });
}

interface NpmResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

function runNpm(npm: NpmCommand, args: string[], cwd: string, signal: AbortSignal): Promise<NpmResult> {
  if (signal.aborted)
    return Promise.reject(new ResonError("aborted", "npm was stopped: the plugin change was cancelled."));
  return new Promise((resolvePromise, reject) => {
    const child = spawnChild(npm.file, [...npm.prefixArgs, ...args], {
      cwd,
      group: true,
      stdio: ["ignore", "pipe", "pipe"],
      // npm's progress output and update notice would only clutter the tail we show on failure.
      env: { ...process.env, npm_config_progress: "false", npm_config_update_notifier: "false" },
    });
    let stdout = "";
    let stderr = "";
    const keep = (text: string) => (text.length > MAX_OUTPUT_CHARS ? text.slice(-MAX_OUTPUT_CHARS) : text);
    child.stdout?.setEncoding("utf8").on("data", (chunk: string) => {
      stdout = keep(stdout + chunk);
    });
    child.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
      stderr = keep(stderr + chunk);
    });
    const onAbort = () => {
      try {
        if (child.pid) process.kill(-child.pid, "SIGTERM");
      } catch {
        // already gone
      }
    };
    signal.addEventListener("abort", onAbort, { once: true });
    child.once("error", (error) => {
      signal.removeEventListener("abort", onAbort);
      reject(
        new ResonError("plugin_failed", `npm did not start (${error.message}).`, {
          hint: "Check that npm works: `npm --version`.",
        }),
      );
    });
    child.once("close", (code) => {
      signal.removeEventListener("abort", onAbort);
      if (signal.aborted)
        reject(new ResonError("aborted", "npm was stopped: the plugin change was cancelled."));
      else resolvePromise({ code, stdout, stderr });
    });
  });
}

/** What npm said went wrong: its JSON error summary, else the end of what it printed. */
function npmFailure(result: NpmResult): string {
  try {
    const parsed = JSON.parse(result.stdout) as { error?: { code?: string; summary?: string } };
    if (parsed.error?.summary)
      return `${parsed.error.code ? `${parsed.error.code}: ` : ""}${parsed.error.summary}`;
  } catch {
    // not JSON: npm failed before it could say anything structured
  }
  const lines = `${result.stderr}\n${result.stdout}`
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "" && !line.includes("A complete log of this run"));
  return lines.slice(-6).join("\n") || `exit status ${result.code}`;
}

/** Makes `prefix` an npm project of its own, so npm does not climb to a package.json above it. */
export async function ensurePrefix(prefix: string): Promise<void> {
  await mkdir(prefix, { recursive: true, mode: 0o700 });
  const file = join(prefix, "package.json");
  const exists = await access(file).then(
    () => true,
    () => false,
  );
  if (exists) return;
  const manifest = {
    private: true,
    description: "Plugins installed by `reson plugin add`; reson manages this folder.",
    dependencies: {},
  };
  await writeFile(file, `${JSON.stringify(manifest, null, 2)}\n`, { flag: "wx" }).catch((error: unknown) => {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
  });
}

async function dependencies(prefix: string): Promise<Record<string, string>> {
  try {
    const parsed = JSON.parse(await readFile(join(prefix, "package.json"), "utf8")) as {
      dependencies?: Record<string, string>;
    };
    return parsed.dependencies ?? {};
  } catch {
    return {};
  }
}

/** The top-level package folder npm's `--json` output names as added or changed, if one. */
function fromNpmOutput(stdout: string, prefix: string): string | undefined {
  let parsed: { add?: { path?: string }[]; change?: { path?: string }[] };
  try {
    parsed = JSON.parse(stdout) as typeof parsed;
  } catch {
    return undefined;
  }
  const top = [...(parsed.add ?? []), ...(parsed.change ?? [])]
    .map((entry) => entry.path)
    .filter((path): path is string => typeof path === "string")
    .filter((path) => /^node_modules\/(@[^/]+\/)?[^/@]+$/.test(relative(prefix, path).split("\\").join("/")));
  return top.length === 1 ? top[0] : undefined;
}

/** The package name the prefix's package.json records for `spec`, when npm changed nothing. */
function fromDependencies(
  deps: Record<string, string>,
  spec: PluginSpec,
  prefix: string,
): string | undefined {
  for (const [name, value] of Object.entries(deps)) {
    if (spec.kind === "tarball" && value.startsWith("file:")) {
      const target = value.slice(5);
      if (resolve(prefix, target) === spec.path || (isAbsolute(target) && target === spec.path)) return name;
    }
    if (spec.kind === "npm" && value === spec.spec) return name;
  }
  if (spec.kind === "npm" && spec.name && Object.hasOwn(deps, spec.name)) return spec.name;
  return undefined;
}

/** The npm package name of an installed plugin folder (`<prefix>/node_modules/<name>`). */
export async function installedPackageName(prefix: string, root: string): Promise<string | undefined> {
  // A plugin's root is a real path; the prefix may lie under a symlink ($RESON_HOME in /tmp on macOS).
  for (const base of [prefix, await realpath(prefix).catch(() => prefix)]) {
    const rel = relative(join(base, "node_modules"), root).split("\\").join("/");
    if (/^(@[^/]+\/)?[^/@.][^/]*$/.test(rel)) return rel;
  }
  return undefined;
}

/** Installs a tarball or npm spec into `prefix`; returns the installed package's folder. */
export async function npmInstall(
  npm: NpmCommand,
  prefix: string,
  spec: Extract<PluginSpec, { kind: "tarball" | "npm" }>,
  signal: AbortSignal,
  options: { newest?: boolean } = {},
): Promise<string> {
  await ensurePrefix(prefix);
  // npm keeps an installed version that satisfies a bare name; an update asks for the newest.
  const bare = spec.kind === "npm" && spec.name === spec.spec;
  const target =
    spec.kind === "tarball" ? spec.path : bare && options.newest ? `${spec.spec}@latest` : spec.spec;
  const result = await runNpm(
    npm,
    ["install", "--prefix", prefix, ...INSTALL_FLAGS, "--json", target],
    prefix,
    signal,
  );
  if (result.code !== 0)
    throw new ResonError("plugin_failed", `npm could not install ${target}: ${npmFailure(result)}`, {
      hint: "Check the name and version (`npm view <name> versions`), your network and npm's registry settings (~/.npmrc).",
    });
  const fromOutput = fromNpmOutput(result.stdout, prefix);
  if (fromOutput) return fromOutput;
  const name = fromDependencies(await dependencies(prefix), spec, prefix);
  if (name) return join(prefix, "node_modules", name);
  throw new ResonError(
    "plugin_failed",
    `npm installed ${target}, but reson cannot tell which package it was.`,
    {
      hint: `Look in ${join(prefix, "node_modules")}; add the package's folder with \`reson plugin add <folder>\` instead.`,
    },
  );
}

/** Uninstalls the package `name` from `prefix` (no package code runs). */
export async function npmUninstall(
  npm: NpmCommand,
  prefix: string,
  name: string,
  signal: AbortSignal,
): Promise<void> {
  const result = await runNpm(
    npm,
    ["uninstall", "--prefix", prefix, ...INSTALL_FLAGS, "--json", name],
    prefix,
    signal,
  );
  if (result.code !== 0)
    throw new ResonError("plugin_failed", `npm could not uninstall ${name}: ${npmFailure(result)}`, {
      hint: `Remove ${join(prefix, "node_modules", name)} by hand if it is still there.`,
    });
}
