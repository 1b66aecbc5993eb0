// The one list of workspace paths that the agent's own writes must not plant or change without
// the user, because something runs or trusts them later without review: git and the tools that
// hook into it, editors, package managers, direnv, and reson's own control files. Both
// enforcers read it: the permission guard (file tools ask, or are refused) and the OS sandbox
// (read-only mounts for commands, with a read-only placeholder where a path does not exist yet).
// Paths are relative to the workspace root, "/"-separated; a folder covers everything beneath it.

/**
 * `executes`: something runs what it says (git hooks and config, an editor's tasks, a package
 * manager's settings, MCP servers): commands can never write it, file tools only with a person's
 * approval each time (or never, see `edits`).
 * `steers`: instructions and skills every later run reads as its own. Writable in a run that has
 * read nothing untrusted; once a run has, they are treated like `executes` (see `protectedKinds`).
 * `installs`: the packages installed for the project (node_modules, a Python virtual
 * environment), which the user's tools load and run with no diff ever showing them (they are
 * ignored). Writable in a run that has read nothing untrusted, like `steers`.
 */
export type ProtectedKind = "executes" | "steers" | "installs";

export interface ProtectedEntry {
  /** Relative to the workspace root, "/"-separated, no trailing slash. */
  path: string;
  kind: ProtectedKind;
  /**
   * File tools: "approved" asks the user every time (they see the change), whatever the mode or
   * rules; "never" refuses even then (git's own files, reson's settings: the user changes them).
   */
  edits: "approved" | "never";
  /** Who reads it and what that can make happen, in the user's words (for reasons and README). */
  reader: string;
  /**
   * A family of files whose names the user chooses (mise's `mise.<env>.toml`): `path` names it
   * for people, `pattern` matches a root-relative path of one. A mount cannot stand in for a
   * name nobody knows yet, so the sandbox keeps the existing ones and those `named` lists (the
   * names in use) read-only; file tools ask about any.
   */
  pattern?: RegExp;
  named?: readonly string[];
  /**
   * A folder that tools make for their own files (`.config`, a Gradle or Maven wrapper's): the
   * sandbox keeps the entry read-only only where the folder exists, so a command that makes it
   * (`gradle wrapper`, `dotnet new tool-manifest`) is not given a read-only empty one in its
   * place; file tools ask about the entry either way.
   */
  whereFolderExists?: string;
  /**
   * A file that makes a missing entry matter (node_modules where a package.json is): the sandbox
   * stands a placeholder in for the entry only where that file exists, so a project of another
   * kind is shown no empty read-only folder of it; an existing entry is kept read-only, and file
   * tools ask either way.
   */
  whereFileExists?: string;
  /**
   * Folders inside the entry where tools keep caches and temporary files (Vite's `.vite` and
   * `.vite-temp` in node_modules): a command gets an empty private one in its place, so the
   * tool works and what it writes there is gone afterwards (none of it can be planted).
   */
  scratch?: readonly string[];
}

/** The folder names `installs` entries stand for, wherever they are below the root (monorepos). */
export const INSTALL_FOLDERS: readonly string[] = ["node_modules", ".venv", "venv"];

const DOTENV = "your app's start-up settings (dotenv, Vite, Next.js, docker compose)";
const MISE = "mise runs the scripts, hooks and tasks it names when you enter the folder";
const INSTALLED =
  "the packages installed here, which your tools load and run with no diff showing a change (the folder is ignored)";

/** The configs mise reads for the environments `miseEnv` names (MISE_ENV: comma-separated). */
export function miseEnvironmentConfigs(miseEnv: string | undefined): string[] {
  const names = (miseEnv ?? "")
    .split(",")
    .map((name) => name.trim())
    .filter((name) => name !== "" && !name.includes("/") && name !== "." && name !== "..");
  return names.flatMap((env) =>
    ["mise", ".mise", ".config/mise"].flatMap((base) => [`${base}.${env}.toml`, `${base}.${env}.local.toml`]),
  );
}

export const PROTECTED_LIST: readonly ProtectedEntry[] = [
  {
    path: ".git",
    kind: "executes",
    edits: "never",
    reader: "git runs the hooks and programs its config names (core.fsmonitor, core.pager, filters)",
  },
  { path: ".gitmodules", kind: "executes", edits: "approved", reader: "git fetches submodules from it" },
  { path: ".husky", kind: "executes", edits: "approved", reader: "husky's git hooks" },
  // Hook managers whose hook in .git runs the commands their work-tree config names.
  {
    path: ".pre-commit-config.yaml",
    kind: "executes",
    edits: "approved",
    reader: "pre-commit runs the hooks it names at your next commit",
  },
  ...["lefthook.yml", ".lefthook.yml", "lefthook-local.yml", ".lefthook-local.yml"].map(
    (path): ProtectedEntry => ({
      path,
      kind: "executes",
      edits: "approved",
      reader: "lefthook runs the commands it names at your next commit",
    }),
  ),
  { path: ".envrc", kind: "executes", edits: "approved", reader: "direnv runs it when you enter the folder" },
  // mise trusts a config by its path, not its content: a changed one is run as it now stands.
  // Every config mise reads from a project folder (its own folders whole: config.toml, conf.d,
  // config.<env>.toml, tasks), and the miserc files that choose which of them load.
  ...[
    "mise.toml",
    ".mise.toml",
    "mise.local.toml",
    ".mise.local.toml",
    "mise",
    ".mise",
    ".config/mise.toml",
    ".config/mise.local.toml",
    ".config/mise",
    ".rtx.toml",
    ".rtx.local.toml",
    ".miserc.toml",
    ".config/miserc.toml",
  ].map(
    (path): ProtectedEntry => ({
      path,
      kind: "executes",
      edits: "approved",
      reader: MISE,
      ...(path.startsWith(".config/") ? { whereFolderExists: ".config" } : {}),
    }),
  ),
  // With MISE_ENV (or -E) set, mise also reads mise.<env>.toml and its local form, dotted or in .config.
  {
    path: "mise.<env>.toml",
    kind: "executes",
    edits: "approved",
    reader: MISE,
    pattern: /^(?:\.config\/)?\.?mise\.[^/]+\.toml$/,
    named: miseEnvironmentConfigs(process.env.MISE_ENV),
  },
  // A version `path:<folder>` is a build of your own: the shims run <folder>/bin/<tool> as it is.
  {
    path: ".tool-versions",
    kind: "executes",
    edits: "approved",
    reader: "asdf and mise run the build a `path:` version names when you run that tool here",
  },
  {
    path: "bunfig.toml",
    kind: "executes",
    edits: "approved",
    reader: "bun runs the scripts its preload names at every bun run, bun test and bunx --bun",
  },
  // Build tools' own settings that run a program no source file shows.
  ...[".cargo/config.toml", ".cargo/config"].map(
    (path): ProtectedEntry => ({
      path,
      kind: "executes",
      edits: "approved",
      reader:
        "cargo runs the programs it names (a target's runner, rustc-wrapper) at your next cargo build or run",
    }),
  ),
  {
    path: "gradle/wrapper/gradle-wrapper.properties",
    kind: "executes",
    edits: "approved",
    reader: "./gradlew downloads and runs the Gradle its distributionUrl names",
    whereFolderExists: "gradle/wrapper",
  },
  {
    path: ".mvn/wrapper/maven-wrapper.properties",
    kind: "executes",
    edits: "approved",
    reader: "./mvnw downloads and runs the Maven its distributionUrl names",
    whereFolderExists: ".mvn/wrapper",
  },
  ...[
    [".mvn/jvm.config", "Maven starts its JVM with these options (a -javaagent runs code)"],
    [".mvn/extensions.xml", "Maven loads the extensions it names into every build"],
  ].map(
    ([path, reader]): ProtectedEntry => ({
      path: path!,
      kind: "executes",
      edits: "approved",
      reader: reader!,
      whereFolderExists: ".mvn",
    }),
  ),
  { path: ".pnpmfile.cjs", kind: "executes", edits: "approved", reader: "pnpm runs it at every install" },
  {
    path: ".vscode",
    kind: "executes",
    edits: "approved",
    reader: "VS Code runs its tasks, launch configurations and settings",
  },
  { path: ".idea", kind: "executes", edits: "approved", reader: "JetBrains IDEs run its configurations" },
  {
    path: ".zed",
    kind: "executes",
    edits: "approved",
    reader: "Zed runs the language servers, formatters and tasks its settings name in a folder you trusted",
  },
  // Other agents' project configs: each starts the MCP servers (or loads the plugins) they name.
  {
    path: ".cursor",
    kind: "executes",
    edits: "approved",
    reader: "Cursor starts the MCP servers its mcp.json names and follows its rules",
  },
  {
    path: ".gemini",
    kind: "executes",
    edits: "approved",
    reader: "Gemini CLI starts the MCP servers and runs the hooks its settings name in a folder you trusted",
  },
  {
    path: ".codex",
    kind: "executes",
    edits: "approved",
    reader: "Codex starts the MCP servers and runs the commands its config names in a project you trusted",
  },
  ...["opencode.json", "opencode.jsonc"].map(
    (path): ProtectedEntry => ({
      path,
      kind: "executes",
      edits: "approved",
      reader: "OpenCode starts the MCP servers and loads the plugins its config names",
    }),
  ),
  {
    path: ".opencode",
    kind: "executes",
    edits: "approved",
    reader: "OpenCode loads the plugins, agents and commands in it",
  },
  {
    path: ".devcontainer",
    kind: "executes",
    edits: "approved",
    reader: "Dev Containers run its commands when the container is built",
  },
  {
    path: ".devcontainer.json",
    kind: "executes",
    edits: "approved",
    reader: "Dev Containers run its commands when the container is built",
  },
  {
    path: ".npmrc",
    kind: "executes",
    edits: "approved",
    reader: "npm and pnpm settings (script-shell, node-options)",
  },
  { path: ".yarnrc", kind: "executes", edits: "approved", reader: "yarn settings" },
  {
    path: ".yarnrc.yml",
    kind: "executes",
    edits: "approved",
    reader: "yarn runs the program yarnPath names",
  },
  ...[
    ".env",
    ".env.local",
    ".env.development",
    ".env.development.local",
    ".env.production",
    ".env.production.local",
    ".env.test",
    ".env.test.local",
  ].map((path): ProtectedEntry => ({ path, kind: "executes", edits: "approved", reader: DOTENV })),
  {
    path: ".reson",
    kind: "executes",
    edits: "never",
    reader: "reson's own settings, permissions, plugins and skills",
  },
  {
    path: ".mcp.json",
    kind: "executes",
    edits: "approved",
    reader: "reson and other agents start its MCP servers",
  },
  {
    path: ".claude/settings.json",
    kind: "executes",
    edits: "approved",
    reader: "Claude Code runs the hooks it names",
  },
  {
    path: ".claude/settings.local.json",
    kind: "executes",
    edits: "approved",
    reader: "Claude Code runs the hooks it names",
  },
  ...["AGENTS.md", "CLAUDE.md", "SOUL.md", "USER.md"].map(
    (path): ProtectedEntry => ({
      path,
      kind: "steers",
      edits: "approved",
      reader: "instructions in every later run's prompt",
    }),
  ),
  ...["GEMINI.md", ".cursorrules", ".windsurfrules"].map(
    (path): ProtectedEntry => ({
      path,
      kind: "steers",
      edits: "approved",
      reader: "instructions other agents (Gemini CLI, Cursor, Windsurf) follow in their later runs",
    }),
  ),
  ...[".agents/skills", ".claude/skills"].map(
    (path): ProtectedEntry => ({ path, kind: "steers", edits: "approved", reader: "skills later runs load" }),
  ),
  ...installEntries(""),
  {
    path: "vendor",
    kind: "installs",
    edits: "approved",
    reader:
      "the packages Composer and Bundler install here (vendor/autoload.php, vendor/bundle), which your tools load and run; often ignored, so no diff shows a change",
    whereFolderExists: "vendor",
  },
];

/**
 * The `installs` entries of a project folder (`base`: "" for the root, else "packages/app/"):
 * its node_modules whole, cache folders aside (a missing one stands on a placeholder, so a
 * package cannot be planted where npm would keep it), and what a Python virtual environment
 * runs, where one exists under the usual names.
 */
export function installEntries(base: string): ProtectedEntry[] {
  return [
    ...installFolderEntries(base, "node_modules"),
    ...installFolderEntries(base, ".venv"),
    ...installFolderEntries(base, "venv"),
  ];
}

/**
 * The `installs` entries of one install folder `name` in `base`: node_modules whole, or an
 * environment's programs, packages and pyvenv.cfg (a virtual environment or a conda one, of
 * any name: the look below the root knows them by their pyvenv.cfg or conda-meta), the
 * environment's own folder staying writable for uv's lock file.
 */
export function installFolderEntries(base: string, name: string): ProtectedEntry[] {
  if (name === "node_modules")
    return [
      {
        path: `${base}node_modules`,
        kind: "installs",
        edits: "approved",
        reader: INSTALLED,
        whereFileExists: `${base}package.json`,
        scratch: [".vite", ".vite-temp", ".cache"],
      },
    ];
  return ["bin", "lib", "lib64", "pyvenv.cfg"].map(
    (part): ProtectedEntry => ({
      path: `${base}${name}/${part}`,
      kind: "installs",
      edits: "approved",
      reader: INSTALLED,
      whereFolderExists: `${base}${name}`,
    }),
  );
}

/** The kinds commands and file tools treat as protected in an ordinary run. */
export const DEFAULT_PROTECTED_KINDS: readonly ProtectedKind[] = ["executes"];

/** What a run that has read untrusted content adds to them. */
export const UNTRUSTED_PROTECTED_KINDS: readonly ProtectedKind[] = ["steers", "installs"];

/** Whether the root-relative `path` ("." for the root) is `entry` or lies beneath it. */
export function coversPath(entry: string, path: string): boolean {
  return path === entry || path.startsWith(`${entry}/`);
}

/** Whether `entry` covers the root-relative `path`: as coversPath says, of its path or of one its pattern matches. */
export function entryCovers(entry: ProtectedEntry, path: string): boolean {
  const { pattern } = entry;
  if (!pattern) return coversPath(entry.path, path);
  const names = path.split("/");
  return names.some((_, index) => pattern.test(names.slice(0, index + 1).join("/")));
}

/**
 * The entry of `list` that covers the root-relative `path` ("/"-separated, without "./"), or
 * undefined. Only the part below the workspace root is judged: a workspace that itself lies in
 * a `.reson` or `.git` folder is not protected for that.
 */
export function protectedEntryOf(
  path: string,
  list: readonly ProtectedEntry[] = PROTECTED_LIST,
): ProtectedEntry | undefined {
  return list.find((entry) => entryCovers(entry, path));
}

/**
 * The `installs` entry covering the root-relative `path` as part of the project folder that
 * holds it (node_modules or a virtual environment at any depth), if any: how file tools see
 * what the sandbox keeps of the folders found below the root.
 */
export function installedEntry(path: string): ProtectedEntry | undefined {
  const atRoot = protectedEntryOf(path);
  if (atRoot?.kind === "installs") return atRoot;
  const segments = path.split("/");
  for (let at = 0; at < segments.length; at++) {
    if (!INSTALL_FOLDERS.includes(segments[at]!)) continue;
    const base = at === 0 ? "" : `${segments.slice(0, at).join("/")}/`;
    const entry = installFolderEntries(base, segments[at]!).find((item) => coversPath(item.path, path));
    if (entry) return entry;
  }
  return undefined;
}

/** The entries of `kinds`. */
export function entriesOfKinds(
  kinds: readonly ProtectedKind[],
  list: readonly ProtectedEntry[] = PROTECTED_LIST,
): ProtectedEntry[] {
  return list.filter((entry) => kinds.includes(entry.kind));
}
