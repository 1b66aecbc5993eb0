// Real temporary folders for skills tests: a $RESON_HOME, a user home, and a git repository
// whose workspace is a subfolder, so the walk up to the git root is exercised. Also the
// real-world fixtures: skill folders laid out as Claude Code and Codex expect them.
import { cp, mkdir, mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";

export interface SkillDirs {
  base: string;
  home: string;
  userHome: string;
  repo: string;
  workspace: string;
  write(files: Record<string, string>): Promise<void>;
  cleanup(): Promise<void>;
}

export async function makeSkillDirs(options: { git?: boolean } = {}): Promise<SkillDirs> {
  const base = await realpath(await mkdtemp(join(tmpdir(), "reson-skills-")));
  const home = join(base, "reson-home");
  const userHome = join(base, "user");
  const repo = join(base, "repo");
  const workspace = join(repo, "packages", "app");
  for (const dir of [home, userHome, workspace]) await mkdir(dir, { recursive: true });
  if (options.git ?? true) await mkdir(join(repo, ".git"));
  return {
    base,
    home,
    userHome,
    repo,
    workspace,
    async write(files) {
      for (const [path, content] of Object.entries(files)) {
        const full = join(base, path);
        await mkdir(dirname(full), { recursive: true });
        await writeFile(full, content);
      }
    },
    cleanup: () => rm(base, { recursive: true, force: true }),
  };
}

/** A SKILL.md with the given frontmatter lines and body. */
export function skillMd(frontmatter: string, body = "Do the thing.\n"): string {
  return `---\n${frontmatter}\n---\n${body}`;
}

/**
 * A project folder (fixtures/project) with skills as other clients lay them out:
 * .claude/skills/{pdf-forms,changelog,release} (Claude Code) and .agents/skills/commit-message
 * (Codex, with agents/openai.yaml). Written for these tests, modelled on public skills.
 */
export const FIXTURE_PROJECT = join(import.meta.dirname, "fixtures", "project");

/** Copies the fixture project's skill folders, byte for byte, into `target`. */
export async function copyFixtureSkills(target: string): Promise<void> {
  await cp(FIXTURE_PROJECT, target, { recursive: true });
}
