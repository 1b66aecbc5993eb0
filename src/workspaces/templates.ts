// Workspace templates: what a new workspace starts with. Two are built in (kept here as data,
// so the library, the CLI bundle and the package carry them without extra files); a user's own
// are folders in $RESON_HOME/templates/<name>/, copied as they are, and win over a built-in
// of the same name.
import { readdir, readFile, readlink, stat } from "node:fs/promises";
import { join } from "node:path";
import { throwIfAborted } from "../core/abort.js";
import { ResonError } from "../core/errors.js";
import { makeFolderWithin, type PlacedEntry, placeWithin } from "../workspace/index.js";

const NOTES_AGENTS = `# Notes

This workspace is a notebook. Keep notes as Markdown files, one topic per file, in
\`notes/\`; name files in lower case with dashes (\`notes/release-plan.md\`).

- Before answering, look for what is already written here (\`grep\`, \`glob\`) and build on it.
- When you learn something worth keeping, add it to the right note, or start one, and say
  which file you changed.
- Keep an index of the notes in \`notes/README.md\`, one line per note.
`;

/** The built-in templates: file paths (relative, "/"-separated) and their text. */
export const BUILTIN_TEMPLATES: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  empty: {},
  notes: { "AGENTS.md": NOTES_AGENTS, "notes/README.md": "# Notes\n\n" },
};

export interface TemplateInfo {
  name: string;
  source: "builtin" | "user";
  /** The folder of a user template. */
  path?: string;
}

export function userTemplatesDir(home: string): string {
  return join(home, "templates");
}

/** Every template a workspace can be made from, user ones first. */
export async function listTemplates(home: string): Promise<TemplateInfo[]> {
  const dir = userTemplatesDir(home);
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  const user: TemplateInfo[] = entries
    .filter((entry) => entry.isDirectory())
    .map((entry) => ({ name: entry.name, source: "user" as const, path: join(dir, entry.name) }))
    .sort((a, b) => a.name.localeCompare(b.name));
  const taken = new Set(user.map((t) => t.name));
  const builtin = Object.keys(BUILTIN_TEMPLATES)
    .filter((name) => !taken.has(name))
    .map((name) => ({ name, source: "builtin" as const }));
  return [...user, ...builtin];
}

/** A template's entries, "/"-separated paths relative to the template, folders before their content. */
type TemplateEntry = { path: string; entry: PlacedEntry | "folder" };

/** A user template's folder as entries: files with their mode, symlinks as they are, folders. */
async function folderEntries(root: string, signal?: AbortSignal): Promise<TemplateEntry[]> {
  const out: TemplateEntry[] = [];
  const walk = async (dir: string, prefix: string): Promise<void> => {
    throwIfAborted(signal);
    const entries = (await readdir(dir, { withFileTypes: true })).sort((a, b) =>
      a.name.localeCompare(b.name),
    );
    for (const entry of entries) {
      const source = join(dir, entry.name);
      const path = prefix ? `${prefix}/${entry.name}` : entry.name;
      if (entry.isSymbolicLink()) out.push({ path, entry: { linkTo: await readlink(source) } });
      else if (entry.isDirectory()) {
        out.push({ path, entry: "folder" });
        await walk(source, path);
      } else if (entry.isFile()) {
        const mode = (await stat(source)).mode & 0o777;
        out.push({ path, entry: { data: await readFile(source), mode } });
      }
    }
  };
  await walk(root, "");
  return out;
}

/**
 * Copies the template `name` into `dest` (an existing folder, by its real path). Files already
 * there are kept, never overwritten; the names of those skipped are returned. Nothing is
 * written through a symlink that leads out of `dest`, whoever put it there. Also returns the
 * files copied, and whether the template is the user's own or built in.
 */
export async function applyTemplate(
  name: string,
  home: string,
  dest: string,
  signal?: AbortSignal,
): Promise<{ skipped: string[]; copied: string[]; source: TemplateInfo["source"] }> {
  throwIfAborted(signal);
  const templates = await listTemplates(home);
  const template = templates.find((t) => t.name === name);
  if (!template) {
    throw new ResonError("usage_error", `There is no workspace template named ${name}.`, {
      hint: `Templates: ${templates.map((t) => t.name).join(", ")}. Your own go in ${userTemplatesDir(home)}/<name>/.`,
    });
  }
  const entries: TemplateEntry[] =
    template.source === "user" && template.path
      ? await folderEntries(template.path, signal)
      : Object.entries(BUILTIN_TEMPLATES[name] ?? {}).map(([path, data]) => ({ path, entry: { data } }));
  const skipped: string[] = [];
  const copied: string[] = [];
  for (const { path, entry } of entries) {
    throwIfAborted(signal);
    if (entry === "folder") makeFolderWithin(dest, path, signal);
    else if (placeWithin(dest, path, entry, signal)) copied.push(path);
    else skipped.push(path);
  }
  return { skipped, copied, source: template.source };
}
