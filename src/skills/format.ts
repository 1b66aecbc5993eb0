// The listing behind `/skills` and `reson skills`: each skill with where it came from and
// whether it is on, then the core skill and every warning found on the way.
import { SkillSet } from "./skill-set.js";
import type { DiscoveredSkills } from "./types.js";

const SHORT_DESCRIPTION_CHARS = 80;

export function formatSkillList(input: DiscoveredSkills | SkillSet): string {
  const set = input instanceof SkillSet ? input : new SkillSet(input);
  const skills = set.list();
  const lines: string[] = [];
  if (skills.length === 0) lines.push("No skills found.");
  for (const skill of skills) {
    const state = set.isEnabled(skill.name) ? "on" : "off";
    const userOnly = skill.disableModelInvocation ? ", user only" : "";
    const source = skill.plugin ? `plugin ${skill.plugin}` : skill.source;
    lines.push(`${skill.name} (${source}, ${state}${userOnly}) ${skill.path}`);
    lines.push(`  ${short(skill.description)}`);
  }
  if (set.core) lines.push("", `Core skill: ${set.core.path}`);
  if (set.warnings.length > 0) {
    lines.push("", `Warnings (${set.warnings.length}):`, ...set.warnings.map((warning) => `  ${warning}`));
  }
  return lines.join("\n");
}

function short(text: string): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length <= SHORT_DESCRIPTION_CHARS ? line : `${line.slice(0, SHORT_DESCRIPTION_CHARS - 1)}…`;
}
