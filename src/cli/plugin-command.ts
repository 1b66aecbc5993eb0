// `reson plugin add|list|show|remove|enable|disable|trust|update`: managing the plugins of the
// user ($RESON_HOME/plugins) and of a project (<workspace>/.reson/plugins). Loading them in a
// run is the plugins runtime's business; this only installs, registers and trusts.
import { realpath } from "node:fs/promises";
import { resonHome } from "../config/index.js";
import { ResonError, toResonError } from "../core/errors.js";
import {
  type AddedPlugin,
  addPlugin,
  discoverPlugins,
  findPlugin,
  type ListedPlugin,
  listPlugins,
  type PluginPlaces,
  type PluginScope,
  pluginHash,
  pluginNeedsTrust,
  pluginPrefix,
  readPluginManifest,
  registryPath,
  removePlugin,
  setPluginEnabled,
  trustRegisteredPlugin,
  updatablePlugins,
} from "../plugins/index.js";
import { parseCommandArgs } from "./command-args.js";
import { confirm } from "./confirm.js";
import { didYouMean } from "./did-you-mean.js";
import { EXIT_OK, EXIT_USAGE, exitCodeForError } from "./exit-codes.js";
import { table } from "./format.js";
import { reportError } from "./run-command.js";
import { outsideText } from "./terminal-text.js";
import { workspaceFolderArg } from "./workspace-choice.js";

const USAGE = `Usage:
  reson plugin add <folder | file.tgz | npm-spec> [--project] [--yes]
                                   register a folder where it lies, or install a tarball or
                                   npm package (name, name@version, @scope/name) with npm
  reson plugin list [--json]       the plugins of both scopes, and whether a run loads them
  reson plugin show <name> [--project] [--json]
  reson plugin remove <name> [--project]   (npm packages are uninstalled; folders stay)
  reson plugin enable|disable <name> [--project]
  reson plugin trust <name> [--project|--user] [--yes]
                                   trust a plugin in its present form (a project's, or
                                   one of yours added from a folder)
  reson plugin update [name] [--project]   install the npm specs again (a newer version)
Options: -w, --workspace <dir> (default: the current folder).
Scopes: user (default) installs into $RESON_HOME/plugins; --project into
<workspace>/.reson/plugins, registered in .reson/plugins.json. A project's plugins load
only once you trusted them; adding one trusts it (in a terminal, reson asks unless --yes).
A folder you add at user scope runs from a copy made as you add it; a change to its files
is asked about (the terminal) or left out (headless runs) until you trust it again.
npm runs with --ignore-scripts --omit=dev: installing runs none of a package's code.
`;

const OPTIONS = {
  project: { type: "boolean" },
  user: { type: "boolean" },
  yes: { type: "boolean", short: "y" },
  json: { type: "boolean" },
  workspace: { type: "string", short: "w" },
  help: { type: "boolean", short: "h" },
} as const;

interface Parsed {
  positionals: string[];
  help: boolean;
  scope: PluginScope;
  yes: boolean;
  json: boolean;
  places: PluginPlaces;
}

async function parse(argv: string[]): Promise<Parsed> {
  const parsed = parseCommandArgs(
    { args: argv, options: OPTIONS, allowPositionals: true, strict: true },
    USAGE,
  );
  const dir = await workspaceFolderArg(parsed.values.workspace);
  const workspace = await realpath(dir).catch(() => {
    throw new ResonError("usage_error", `The workspace ${dir} does not exist.`, {
      hint: "Pass an existing folder with -w, or run reson plugin inside the project.",
    });
  });
  return {
    positionals: parsed.positionals,
    help: parsed.values.help === true,
    scope: parsed.values.project ? "project" : "user",
    yes: parsed.values.yes === true,
    json: parsed.values.json === true,
    places: { home: resonHome(), workspace },
  };
}

function one(parsed: Parsed, command: string): string {
  const [name, extra] = parsed.positionals;
  if (!name || extra !== undefined)
    throw new ResonError("usage_error", `reson plugin ${command} takes one plugin name.`, { hint: USAGE });
  return name;
}

const say = (text: string) => process.stdout.write(`${text}\n`);
const warn = (text: string) => process.stderr.write(`warning: ${text}\n`);

const askInTerminal = (parsed: Parsed) => !parsed.yes && process.stdin.isTTY === true;

function reportAdded(added: AddedPlugin, scope: PluginScope): void {
  const { record, previous } = added;
  const version = (v?: string) => v ?? "(no version)";
  if (previous)
    say(
      `Updated plugin "${record.name}" (${scope}): ${version(previous.version)} → ${version(record.version)}, from ${record.source}.`,
    );
  else say(`Added plugin "${record.name}" ${version(record.version)} (${scope}) from ${record.source}.`);
  say(`  folder: ${record.root}`);
  for (const warning of [...added.manifest.warnings, ...added.warnings]) warn(warning);
}

async function trustAfterAdd(parsed: Parsed, added: AddedPlugin): Promise<void> {
  const { name, root } = added.record;
  if (parsed.scope === "user") {
    if (added.trustedHash)
      say(
        `Trusted "${name}" as you added it (package hash ${added.trustedHash}): it runs from a copy of its files and of what it imports, in ${resonHome()}/plugin-code. After you change it, the terminal asks once; elsewhere \`reson plugin trust ${name}\` takes the change.`,
      );
    return;
  }
  if (added.trustedHash) {
    say(
      `Trusted "${name}" for ${parsed.places.workspace} as you added it (package hash ${added.trustedHash}).`,
    );
    return;
  }
  const hash = await pluginHash(root);
  const ok = await confirm(
    `"${name}" runs its code with your rights in every run in ${parsed.places.workspace}. Trust it (package hash ${hash})?`,
  );
  if (!ok) {
    say(`Not trusted: runs here leave it out until \`reson plugin trust ${name}\`.`);
    return;
  }
  await trustRegisteredPlugin({
    ...parsed.places,
    scope: "project",
    name,
    hash,
    signal: AbortSignal.timeout(60_000),
  });
  say(`Trusted "${name}" for ${parsed.places.workspace} (package hash ${hash}).`);
}

async function addCommand(parsed: Parsed, signal: AbortSignal): Promise<number> {
  const [spec, extra] = parsed.positionals;
  if (!spec || extra !== undefined)
    throw new ResonError("usage_error", "reson plugin add takes one folder, tarball or npm package.", {
      hint: USAGE,
    });
  const ask = parsed.scope === "project" && askInTerminal(parsed);
  const added = await addPlugin({ ...parsed.places, scope: parsed.scope, spec, signal, trust: !ask });
  reportAdded(added, parsed.scope);
  await trustAfterAdd(parsed, added);
  return EXIT_OK;
}

function row(plugin: ListedPlugin): string[] {
  const trusted = plugin.trusted === undefined ? "-" : plugin.trusted ? "yes" : "no";
  return [
    plugin.name,
    plugin.version ?? "-",
    plugin.scope,
    plugin.enabled ? "yes" : "no",
    trusted,
    plugin.status,
    plugin.source,
  ];
}

async function listCommand(parsed: Parsed): Promise<number> {
  if (parsed.positionals.length > 0)
    throw new ResonError("usage_error", "reson plugin list takes no arguments.", { hint: USAGE });
  const list = await listPlugins(parsed.places);
  if (parsed.json) {
    say(JSON.stringify(list));
    return EXIT_OK;
  }
  for (const problem of list.problems) warn(problem);
  if (list.plugins.length === 0) {
    say(
      `No plugins. User plugins: ${registryPath("user", parsed.places)}; this project's: ${registryPath("project", parsed.places)}.`,
    );
    say("Add one with `reson plugin add <folder | file.tgz | npm-package>`.");
    return EXIT_OK;
  }
  say(
    table([
      ["plugin", "version", "scope", "enabled", "trusted", "status", "source"],
      ...list.plugins.map(row),
    ]),
  );
  // A problem names files a run's commands may have named: written out on a terminal.
  const outside = outsideText(process.stdout);
  for (const plugin of list.plugins)
    if (plugin.problem && plugin.status !== "untrusted")
      say(`${plugin.name} (${plugin.scope}): ${outside(plugin.problem)}`);
  const untrusted = list.plugins.filter((p) => p.status === "untrusted");
  for (const plugin of untrusted)
    say(
      `${plugin.name} (${plugin.scope}): not trusted in its present form (${outside(plugin.problem ?? "not trusted yet")}); \`reson plugin trust ${plugin.name}\` loads it.`,
    );
  return EXIT_OK;
}

/** The record of `name`: at the scope asked for, else the project's, else the user's. */
async function located(parsed: Parsed, name: string, explicit: boolean) {
  const scopes: PluginScope[] = explicit ? [parsed.scope] : ["project", "user"];
  for (const scope of scopes) {
    const record = await findPlugin(name, scope, parsed.places);
    if (record) return { record, scope };
  }
  throw new ResonError(
    "not_found",
    `There is no plugin "${name}"${explicit ? ` at ${parsed.scope} scope` : ""}.`,
    {
      hint: "`reson plugin list` shows the plugins of both scopes.",
    },
  );
}

async function showCommand(parsed: Parsed, argv: string[]): Promise<number> {
  const name = one(parsed, "show");
  const explicit = argv.includes("--project") || argv.includes("--user");
  const { record, scope } = await located(parsed, name, explicit);
  const manifest = await readPluginManifest(record.root);
  // A trusted plugin runs from the copy made when it was trusted.
  const copy = (await discoverPlugins(parsed.places)).load.find((p) => p.scope === scope && p.name === name)
    ?.code?.root;
  const shown = {
    name: manifest.name,
    scope,
    ...(manifest.displayName ? { displayName: manifest.displayName } : {}),
    ...(manifest.version ? { version: manifest.version } : {}),
    ...(manifest.description ? { description: manifest.description } : {}),
    source: record.source,
    root: manifest.root,
    enabled: record.enabled,
    ...(copy ? { runsFrom: copy } : {}),
    ...(manifest.entry ? { entry: manifest.entry } : {}),
    ...(manifest.skillsDir ? { skills: manifest.skillsDir } : {}),
    ...(manifest.mcpFile ? { mcp: manifest.mcpFile } : {}),
    warnings: manifest.warnings,
  };
  if (parsed.json) {
    say(JSON.stringify(shown));
    return EXIT_OK;
  }
  say(
    `${manifest.displayName ?? manifest.name} ${manifest.version ?? "(no version)"} (${scope}, ${record.enabled ? "enabled" : "disabled"})`,
  );
  if (manifest.description) say(`  ${manifest.description}`);
  say(`  source: ${record.source}`);
  say(`  folder: ${manifest.root}`);
  if (copy) say(`  runs from: ${copy} (the copy you trusted)`);
  say(`  reson entry: ${manifest.entry ?? "none (no extensions.dev.reson.entry)"}`);
  say(`  skills: ${manifest.skillsDir ?? "none"}`);
  say(`  mcp.json: ${manifest.mcpFile ?? "none"}`);
  for (const warning of manifest.warnings) warn(warning);
  return EXIT_OK;
}

async function removeCommand(parsed: Parsed, signal: AbortSignal): Promise<number> {
  const name = one(parsed, "remove");
  const removed = await removePlugin({ ...parsed.places, scope: parsed.scope, name, signal });
  say(`Removed plugin "${name}" (${parsed.scope}).`);
  if (removed.uninstalled)
    say(`  npm uninstalled ${removed.uninstalled} from ${pluginPrefix(parsed.scope, parsed.places)}.`);
  else if (removed.record.source.startsWith("path:"))
    say(`  Its folder stays where it is: ${removed.record.root}`);
  for (const warning of removed.warnings) warn(warning);
  return EXIT_OK;
}

async function enableCommand(parsed: Parsed, enabled: boolean, signal: AbortSignal): Promise<number> {
  const name = one(parsed, enabled ? "enable" : "disable");
  const result = await setPluginEnabled({ ...parsed.places, scope: parsed.scope, name, enabled, signal });
  const state = enabled ? "enabled" : "disabled";
  say(
    result.changed
      ? `Plugin "${name}" (${parsed.scope}) is now ${state}.`
      : `Plugin "${name}" (${parsed.scope}) was already ${state}.`,
  );
  return EXIT_OK;
}

/** The plugin `trust` means: the scope given, else this workspace's, else the user's (a project's shadows it). */
async function toTrust(parsed: Parsed, name: string, argv: string[]) {
  const explicit = argv.includes("--project") || argv.includes("--user");
  const found = await located(parsed, name, explicit).catch((error: unknown) => {
    if (explicit) throw error;
    throw new ResonError(
      "not_found",
      `There is no plugin "${name}" in ${parsed.places.workspace} or yours.`,
      {
        hint: "`reson plugin list` shows the plugins of both scopes; `reson plugin add` adds one.",
      },
    );
  });
  if (!(await pluginNeedsTrust(found.record, found.scope, parsed.places)))
    throw new ResonError(
      "usage_error",
      `The plugin "${name}" (${found.scope}) is installed in ${pluginPrefix(found.scope, parsed.places)}, which runs' commands cannot change: it loads without trust.`,
    );
  return found;
}

async function trustCommand(parsed: Parsed, argv: string[], signal: AbortSignal): Promise<number> {
  const name = one(parsed, "trust");
  const { record, scope } = await toTrust(parsed, name, argv);
  const hash = await pluginHash(record.root);
  const where = scope === "project" ? `every run in ${parsed.places.workspace}` : "every run of yours";
  if (askInTerminal(parsed)) {
    const ok = await confirm(
      `"${name}" (${record.root}) runs its code with your rights in ${where}. Trust it (package hash ${hash})?`,
    );
    if (!ok) {
      say("Not trusted.");
      return EXIT_OK;
    }
  }
  await trustRegisteredPlugin({ ...parsed.places, scope, name, hash, signal });
  say(
    `Trusted "${name}" (${scope}) ${scope === "project" ? `for ${parsed.places.workspace}` : "in every workspace"} (package hash ${hash}): it runs from a copy of its files and of what it imports, in ${resonHome()}/plugin-code. A change to its files asks again.`,
  );
  return EXIT_OK;
}

async function updateCommand(parsed: Parsed, signal: AbortSignal): Promise<number> {
  const [name, extra] = parsed.positionals;
  if (extra !== undefined)
    throw new ResonError("usage_error", "reson plugin update takes at most one plugin name.", {
      hint: USAGE,
    });
  const records = await updatablePlugins(parsed.scope, parsed.places, name);
  if (records.length === 0) {
    if (!name) say(`No npm plugins at ${parsed.scope} scope.`);
    else {
      const folder = await findPlugin(name, parsed.scope, parsed.places);
      const trusted = folder && (await pluginNeedsTrust(folder, parsed.scope, parsed.places));
      say(
        `"${name}" was added from a folder: there is nothing to install; ${trusted ? `a change to its files runs once \`reson plugin trust ${name}\` takes it` : "reson uses it as it is"}.`,
      );
    }
    return EXIT_OK;
  }
  // Updating a project's plugins vouches for what gets installed, as adding them does.
  const ask = parsed.scope === "project" && askInTerminal(parsed);
  for (const record of records) {
    const added = await addPlugin({
      ...parsed.places,
      scope: parsed.scope,
      spec: record.source.slice("npm:".length),
      signal,
      keepEnabled: true,
      newest: true,
      trust: !ask,
    });
    reportAdded(added, parsed.scope);
    await trustAfterAdd(parsed, added);
  }
  return EXIT_OK;
}

async function dispatch(sub: string, rest: string[], signal: AbortSignal): Promise<number> {
  const parsed = await parse(rest);
  if (parsed.help) {
    process.stdout.write(USAGE);
    return EXIT_OK;
  }
  switch (sub) {
    case "add":
    case "install":
      return addCommand(parsed, signal);
    case "list":
    case "ls":
      return listCommand(parsed);
    case "show":
      return showCommand(parsed, rest);
    case "remove":
    case "uninstall":
    case "rm":
      return removeCommand(parsed, signal);
    case "enable":
      return enableCommand(parsed, true, signal);
    case "disable":
      return enableCommand(parsed, false, signal);
    case "trust":
      return trustCommand(parsed, rest, signal);
    case "update":
      return updateCommand(parsed, signal);
    default:
      throw new ResonError(
        "usage_error",
        `Unknown plugin command "${sub}".${didYouMean(sub, ["add", "list", "show", "remove", "enable", "disable", "trust", "update"])}`,
        { hint: USAGE },
      );
  }
}

export async function pluginCommand(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === undefined || sub === "help" || sub === "--help" || sub === "-h") {
    process.stdout.write(USAGE);
    return sub === undefined ? EXIT_USAGE : EXIT_OK;
  }
  // Ctrl-C stops npm (and what it started) rather than leaving a half-written prefix behind.
  const controller = new AbortController();
  const onSignal = () => controller.abort();
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
  try {
    return await dispatch(sub, rest, controller.signal);
  } catch (error) {
    const failure = toResonError(error, "plugin_failed");
    reportError(failure);
    return exitCodeForError(failure.code);
  } finally {
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
  }
}
