// The skills module: SKILL.md discovery (Agent Skills standard, Claude Code extras accepted),
// the core skill, the catalogue within a budget, the `skill` tool, and switching skills on
// and off for a session.
export type { CatalogueOptions } from "./catalogue.js";
export { MAX_ENTRY_CHARS, skillCatalogue } from "./catalogue.js";
export { discoverSkills, PROJECT_SKILL_FOLDERS } from "./discover.js";
export { formatSkillList } from "./format.js";
export { SkillSet } from "./skill-set.js";
export type { SkillToolOptions } from "./skill-tool.js";
export { createSkillTool, MAX_INLINE_FILE_BYTES, MAX_INLINE_FILES, userInvokedTask } from "./skill-tool.js";
export type {
  CoreSkill,
  DiscoveredSkills,
  DiscoverSkillsOptions,
  Skill,
  SkillSource,
} from "./types.js";
export { MAX_DESCRIPTION_CHARS, MAX_NAME_CHARS } from "./types.js";
