// plugin.json as the Agent Plugins format defines it (a name, metadata, and client-owned parts
// under `extensions` keyed by namespace), with reson's own part under "dev.reson": the entry
// module of its tools and hooks. Read leniently (unknown keys are kept, and only warned about),
// but every path must stay inside the plugin's folder.
import { readFile, realpath, stat } from "node:fs/promises";
import { join, resolve } from "node:path";
import { ResonError } from "../core/errors.js";
import { isWithin } from "../core/path-within.js";

/** The namespace of reson's part of a plugin.json `extensions`. */
export const RESON_EXTENSION = "dev.reson";

const NAME = /^[a-z0-9][a-z0-9.-]{0,63}$/;
const KNOWN_KEYS = new Set([
  "$schema",
  "name",
  "displayName",
  "icon",
  "version",
  "description",
  "author",
  "homepage",
  "repository",
  "license",
  "keywords",
  "extensions",
]);

export interface PluginManifest {
  name: string;
  version?: string;
  description?: string;
  displayName?: string;
  /** The plugin's folder (real path). */
  root: string;
  /** reson's entry module (absolute), when the plugin has one. */
  entry?: string;
  /** reson's config section for the plugin as its author describes it, if any (free-form). */
  resonExtension?: Record<string, unknown>;
  /** `skills/` of the plugin, when it has one. */
  skillsDir?: string;
  /** `mcp.json` of the plugin, when it has one. */
  mcpFile?: string;
  /** Things a user may want to know but that do not stop the plugin (unknown keys). */
  warnings: string[];
}

function invalid(root: string, message: string, hint: string): ResonError {
  return new ResonError("plugin_invalid", `The plugin in ${root} ${message}`, { hint });
}

function optionalString(value: unknown, key: string, root: string): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "string")
    throw invalid(root, `has a "${key}" that is not a string.`, `Make "${key}" in plugin.json a string.`);
  return value;
}

/** A path named by the manifest, resolved and kept inside the plugin's folder. */
async function insideRoot(root: string, relativePath: string, key: string): Promise<string> {
  const path = resolve(root, relativePath);
  const real = await realpath(path).catch(() => undefined);
  if (!real)
    throw invalid(
      root,
      `names ${key} "${relativePath}", which does not exist.`,
      "Fix the path in plugin.json.",
    );
  if (!isWithin(real, root))
    throw invalid(
      root,
      `names ${key} "${relativePath}", which lies outside the plugin's folder.`,
      "A plugin may only name files inside its own folder.",
    );
  return real;
}

async function existing(path: string, kind: "file" | "dir"): Promise<boolean> {
  const info = await stat(path).catch(() => undefined);
  return info !== undefined && (kind === "dir" ? info.isDirectory() : info.isFile());
}

/** Reads and checks `<folder>/plugin.json`; throws plugin_invalid saying what to fix. */
export async function readPluginManifest(folder: string): Promise<PluginManifest> {
  const root = await realpath(folder).catch(() => {
    throw invalid(folder, "does not exist.", "Give the folder that holds the plugin's plugin.json.");
  });
  let text: string;
  try {
    text = await readFile(join(root, "plugin.json"), "utf8");
  } catch {
    throw invalid(root, "has no plugin.json.", "A plugin is a folder with a plugin.json that names it.");
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw invalid(
      root,
      `has a plugin.json that is not JSON (${(error as Error).message}).`,
      "Fix plugin.json.",
    );
  }
  if (typeof raw !== "object" || raw === null || Array.isArray(raw))
    throw invalid(root, "has a plugin.json that is not an object.", "plugin.json holds one JSON object.");
  const fields = raw as Record<string, unknown>;
  const name = fields.name;
  if (typeof name !== "string" || !NAME.test(name))
    throw invalid(
      root,
      `has no valid "name" in plugin.json (got ${JSON.stringify(name)}).`,
      'A plugin name is 1 to 64 characters of a-z, 0-9, "." and "-", starting with a letter or digit.',
    );
  const warnings = Object.keys(fields)
    .filter((key) => !KNOWN_KEYS.has(key))
    .map((key) => `plugin.json has a key the Agent Plugins format does not define: "${key}" (ignored)`);
  const manifest: PluginManifest = { name, root, warnings };
  const version = optionalString(fields.version, "version", root);
  if (version !== undefined) manifest.version = version;
  const description = optionalString(fields.description, "description", root);
  if (description !== undefined) manifest.description = description;
  const displayName = optionalString(fields.displayName, "displayName", root);
  if (displayName !== undefined) manifest.displayName = displayName;

  const extensions = fields.extensions;
  if (
    extensions !== undefined &&
    (typeof extensions !== "object" || extensions === null || Array.isArray(extensions))
  )
    throw invalid(
      root,
      'has "extensions" that is not an object.',
      'Make "extensions" an object keyed by namespace.',
    );
  const own = (extensions as Record<string, unknown> | undefined)?.[RESON_EXTENSION];
  if (own !== undefined) {
    if (typeof own !== "object" || own === null || Array.isArray(own))
      throw invalid(
        root,
        `has an "extensions.${RESON_EXTENSION}" that is not an object.`,
        'Give it an "entry".',
      );
    const section = own as Record<string, unknown>;
    manifest.resonExtension = section;
    const entry = optionalString(section.entry, `extensions.${RESON_EXTENSION}.entry`, root);
    if (entry !== undefined) manifest.entry = await insideRoot(root, entry, "an entry module");
  }
  const skillsDir = join(root, "skills");
  if (await existing(skillsDir, "dir"))
    manifest.skillsDir = await insideRoot(root, "skills", "a skills folder");
  const mcpFile = join(root, "mcp.json");
  if (await existing(mcpFile, "file")) manifest.mcpFile = await insideRoot(root, "mcp.json", "an MCP file");
  return manifest;
}
