// A local MCP server runs outside the sandbox, in the workspace folder (so "." in its arguments
// is the workspace), where a fooled run's commands can write. Launchers that look in the
// current folder for the code they run would then run what such a run planted, with the user's
// rights, at the server's next start: `npx <package>` and `npm exec` prefer a copy in the
// nearest node_modules, and `python -m <module>` imports from the current folder first. The
// launch is changed so they never do: npx and npm exec get `--prefix` of an empty folder of
// reson's own (they then run the package from npm's cache, still in the workspace folder),
// python gets PYTHONSAFEPATH. A definition that sets these itself is left as it is.
import { basename } from "node:path";

export interface Launch {
  command: string;
  args: readonly string[];
  env: Readonly<Record<string, string>>;
}

const PYTHON = /^python(\d+(\.\d+)?)?$/;

function hasPrefix(args: readonly string[]): boolean {
  return args.some((arg) => arg === "--prefix" || arg.startsWith("--prefix="));
}

/** `launch` changed so that it runs nothing from the workspace's own packages; `emptyFolder` must exist. */
export function launchOutsideWorkspace(launch: Launch, emptyFolder: string): Launch {
  const name = basename(launch.command).replace(/\.(cmd|exe)$/i, "");
  if (name === "npx" && !hasPrefix(launch.args))
    return { ...launch, args: ["--prefix", emptyFolder, ...launch.args] };
  const [sub, ...rest] = launch.args;
  if (name === "npm" && (sub === "exec" || sub === "x") && !hasPrefix(launch.args))
    return { ...launch, args: [sub, "--prefix", emptyFolder, ...rest] };
  if (PYTHON.test(name) && launch.env.PYTHONSAFEPATH === undefined)
    return { ...launch, env: { ...launch.env, PYTHONSAFEPATH: "1" } };
  return launch;
}
