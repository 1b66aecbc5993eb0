// The session's skills and which of them are switched on (`/skill <name> on|off` in the
// terminal). Switching is for this session only; nothing is written to disk.
import type { CoreSkill, DiscoveredSkills, Skill } from "./types.js";

export class SkillSet {
  readonly warnings: readonly string[];
  readonly core: CoreSkill | undefined;
  private readonly skills: readonly Skill[];
  private readonly off = new Set<string>();

  constructor(discovered: DiscoveredSkills) {
    this.skills = discovered.skills;
    this.warnings = discovered.warnings;
    this.core = discovered.core;
  }

  /** Every skill found, on or off, sorted by name. */
  list(): Skill[] {
    return [...this.skills];
  }

  get(name: string): Skill | undefined {
    return this.skills.find((skill) => skill.name === name);
  }

  isEnabled(name: string): boolean {
    return this.get(name) !== undefined && !this.off.has(name);
  }

  /** Switches a skill on or off; false when there is no skill of that name. */
  setEnabled(name: string, on: boolean): boolean {
    if (!this.get(name)) return false;
    if (on) this.off.delete(name);
    else this.off.add(name);
    return true;
  }

  /** Switches off what `previous` (the session's agent before a model change) had off. */
  keepSwitchedOff(previous: SkillSet): void {
    for (const name of previous.off) this.setEnabled(name, false);
  }

  /** The skills switched on. */
  enabled(): Skill[] {
    return this.skills.filter((skill) => !this.off.has(skill.name));
  }
}
