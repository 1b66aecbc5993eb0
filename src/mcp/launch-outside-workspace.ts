// A local MCP server runs outside the sandbox, in the workspace folder (so "." in its arguments
// is the workspace), where a fooled run's commands can write. Launchers that look in the
// current folder for the code they run would then run what such a run planted, with the user's
// rights, at the server's next start: `npx <package>` and `npm exec` prefer a copy in the
// nearest node_modules, and `python -m <module>` imports from the current folder first. The
// launch is changed so they never do: npx and npm exec get `--prefix` of an empty folder of
// reson's own (they then run the package from npm's cache, still in the workspace folder),
// python gets PYTHONSAFEPATH. A definition that sets these itself is left as it is.
//
// Two more, for the user's own servers only (a project's server runs the project's code by
// design, once approved): `uv run` takes the project, its .venv and its uv settings (the package
// index included) from the folder it runs in, so it gets `--project` of the same empty folder
// (relative paths still mean the workspace); `uvx` needs nothing, as uv's tool commands read no
// settings from the folder. `bunx` runs a copy in the workspace's node_modules first and has no
// option against it but `--cwd`, which moves the server too: such a launch is not started while
// the workspace holds a copy of the package (bunxLocalCopy).
import { lstatSync } from "node:fs";
import { basename, dirname, join, relative, resolve } from "node:path";
import { isWithin } from "../core/path-within.js";

export interface Launch {
  command: string;
  args: readonly string[];
  env: Readonly<Record<string, string>>;
}

/** Whose definition it is: the user's own (in $RESON_HOME, flags) or the project's. */
export type LaunchScope = "user" | "project";

const PYTHON = /^python(\d+(\.\d+)?)?$/;

function launcherName(command: string): string {
  return basename(command).replace(/\.(cmd|exe)$/i, "");
}

function hasOption(args: readonly string[], ...options: string[]): boolean {
  return args.some((arg) => options.some((option) => arg === option || arg.startsWith(`${option}=`)));
}

/** `launch` changed so that it runs nothing from the workspace's own packages; `emptyFolder` must exist. */
export function launchOutsideWorkspace(launch: Launch, emptyFolder: string, scope: LaunchScope): Launch {
  const name = launcherName(launch.command);
  if (name === "npx" && !hasOption(launch.args, "--prefix"))
    return { ...launch, args: ["--prefix", emptyFolder, ...launch.args] };
  const [sub, ...rest] = launch.args;
  if (name === "npm" && (sub === "exec" || sub === "x") && !hasOption(launch.args, "--prefix"))
    return { ...launch, args: [sub, "--prefix", emptyFolder, ...rest] };
  if (PYTHON.test(name) && launch.env.PYTHONSAFEPATH === undefined)
    return { ...launch, env: { ...launch.env, PYTHONSAFEPATH: "1" } };
  if (
    name === "uv" &&
    scope === "user" &&
    sub === "run" &&
    !hasOption(launch.args, "--project", "--directory") &&
    launch.env.UV_PROJECT === undefined
  )
    return { ...launch, args: [sub, "--project", emptyFolder, ...rest] };
  return launch;
}

/** bunx's options that take a value (the first other argument names the package). */
const BUNX_VALUED = new Set([
  "--cwd",
  "--env-file",
  "--registry",
  "--ca",
  "--cafile",
  "--minimum-release-age",
]);

/** The package a bunx launch runs and its executable's name; undefined when it is not bunx or sets --cwd. */
function bunxTarget(launch: Launch): { pkg: string; bin: string } | undefined {
  const name = launcherName(launch.command);
  const args =
    name === "bunx"
      ? launch.args
      : name === "bun" && launch.args[0] === "x"
        ? launch.args.slice(1)
        : undefined;
  if (!args || hasOption(args, "--cwd")) return undefined;
  let pkg: string | undefined;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === "-p" || arg === "--package") pkg = args[++i];
    else if (arg.startsWith("--package=")) pkg = arg.slice("--package=".length);
    else if (BUNX_VALUED.has(arg)) i++;
    else if (!arg.startsWith("-")) {
      // Without -p the executable is the package's name without its scope.
      if (pkg !== undefined) return { pkg: withoutVersion(pkg), bin: arg };
      const spec = withoutVersion(arg);
      return { pkg: spec, bin: spec.slice(spec.lastIndexOf("/") + 1) };
    }
  }
  return undefined;
}

/** `name@version` or `@scope/name@version` without the version. */
function withoutVersion(spec: string): string {
  const at = spec.lastIndexOf("@");
  return at > 0 ? spec.slice(0, at) : spec;
}

/**
 * The copy of the package a bunx launch of the user's would run instead of the package itself
 * (relative to the workspace), found in a node_modules between the server's folder and the
 * workspace root, where a run's commands can write; undefined for none (or not bunx).
 */
export function bunxLocalCopy(launch: Launch, cwd: string, workspace: string): string | undefined {
  const target = bunxTarget(launch);
  if (!target || !isWithin(cwd, workspace)) return undefined;
  for (let dir = resolve(cwd); isWithin(dir, workspace); dir = dirname(dir)) {
    for (const path of [join(dir, "node_modules", ".bin", target.bin), join(dir, "node_modules", target.pkg)])
      if (lstatSync(path, { throwIfNoEntry: false })) return relative(workspace, path);
    if (dir === resolve(workspace)) break;
  }
  return undefined;
}
