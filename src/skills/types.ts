// The data of the skills module: a discovered skill, what discovery returns, and the limits
// of the Agent Skills standard that SKILL.md frontmatter is checked against.

/**
 * Where a skill was found: the project's folders (which win on a name clash), the user's own,
 * or a plugin's `skills/` (which yield to both: a user's own skill overrides a plugin's).
 */
export type SkillSource = "user" | "project" | "plugin";

export interface Skill {
  /** The skill's name: its folder's name (frontmatter `name` is checked against it). */
  name: string;
  description: string;
  /** The skill's folder (absolute). */
  path: string;
  /** Its SKILL.md (absolute). */
  file: string;
  source: SkillSource;
  /** The plugin whose skill it is (source "plugin"). */
  plugin?: string;
  /** SKILL.md without its frontmatter. */
  body: string;
  /** The other files of the folder, relative to it with "/" separators, sorted; not read. */
  files: string[];
  /** `disable-model-invocation`: only the user may invoke it; it is left out of the catalogue. */
  disableModelInvocation: boolean;
  /** `user-invocable` (default true): false hides it from the user's `/name` commands. */
  userInvocable: boolean;
  /** `allowed-tools`, one entry per tool rule (e.g. "Bash(git add:*)", "Read"). */
  allowedTools?: string[];
  /** `when_to_use`, which the catalogue appends to the description. */
  whenToUse?: string;
  license?: string;
  compatibility?: string;
  metadata?: Record<string, string>;
}

/** The core skill: `core.md` directly in a skills folder, always in the system prompt. */
export interface CoreSkill {
  path: string;
  text: string;
}

export interface DiscoveredSkills {
  /** Sorted by name; one per name (project over user, nearer folder over farther). */
  skills: Skill[];
  core?: CoreSkill;
  /** One line each: the path and what was wrong with it. */
  warnings: string[];
}

export interface DiscoverSkillsOptions {
  /** The workspace root; project folders are looked for from here up to the git root. */
  workspaceRoot: string;
  /** $RESON_HOME (its `skills` folder is a user folder). */
  home: string;
  /** The user's home directory (its `.agents/skills` is a user folder). */
  userHome: string;
  /** Loaded plugins' `skills/` folders, searched after the user's (a core.md there is not read). */
  pluginFolders?: readonly { path: string; plugin: string }[];
  signal?: AbortSignal;
}

export const MAX_NAME_CHARS = 64;
export const MAX_DESCRIPTION_CHARS = 1024;
export const MAX_COMPATIBILITY_CHARS = 500;
/** The spec's name rule: lowercase letters and digits in hyphen-separated runs. */
export const NAME_PATTERN = /^[a-z0-9]+(-[a-z0-9]+)*$/;
