// Workspace templates: what a new workspace starts with. Two are built in (kept here as data,
// so the library, the CLI bundle and the package carry them without extra files); a user's own
// are folders in $RESON_HOME/templates/<name>/, copied as they are, and win over a built-in
// of the same name.
import { cp, mkdir, readdir, stat, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { throwIfAborted } from "../core/abort.js";
import { ResonError } from "../core/errors.js";

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

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}

/**
 * Copies the template `name` into `dest` (an existing folder). Files already there are kept,
 * never overwritten; the names of those skipped are returned.
 */
export async function applyTemplate(
  name: string,
  home: string,
  dest: string,
  signal?: AbortSignal,
): Promise<{ skipped: string[] }> {
  throwIfAborted(signal);
  const templates = await listTemplates(home);
  const template = templates.find((t) => t.name === name);
  if (!template) {
    throw new ResonError("usage_error", `There is no workspace template named ${name}.`, {
      hint: `Templates: ${templates.map((t) => t.name).join(", ")}. Your own go in ${userTemplatesDir(home)}/<name>/.`,
    });
  }
  const skipped: string[] = [];
  if (template.source === "user" && template.path) {
    await cp(template.path, dest, {
      recursive: true,
      force: false,
      errorOnExist: false,
      // Symlinks are copied as links; a link out of the template would then point elsewhere.
      verbatimSymlinks: true,
    });
    return { skipped };
  }
  for (const [file, text] of Object.entries(BUILTIN_TEMPLATES[name] ?? {})) {
    throwIfAborted(signal);
    const target = join(dest, ...file.split("/"));
    if (await exists(target)) {
      skipped.push(file);
      continue;
    }
    await mkdir(dirname(target), { recursive: true });
    await writeFile(target, text, { flag: "wx" });
  }
  return { skipped };
}
