// The skill catalogue: one line per skill the model may invoke, for the `skill` tool's
// description. It must fit a budget (a small share of the context window): descriptions
// are shortened first, then the last skills by name are left out and counted in a note.
import { compareNames } from "./discover.js";
import type { Skill } from "./types.js";

export interface CatalogueOptions {
  /** At most this many characters, newlines included. */
  budgetChars: number;
}

/** Each entry (description and when_to_use) is cut to this many characters even within budget. */
export const MAX_ENTRY_CHARS = 1536;
/** Descriptions are not shortened below this before skills start being left out. */
const MIN_DESCRIPTION_CHARS = 60;

/** The skills the model may invoke, sorted by name. */
export function invocableSkills(skills: readonly Skill[]): Skill[] {
  return skills.filter((skill) => !skill.disableModelInvocation).sort((a, b) => compareNames(a.name, b.name));
}

export function skillCatalogue(skills: readonly Skill[], options: CatalogueOptions): string {
  const entries = invocableSkills(skills).map((skill) => ({
    name: skill.name,
    text: oneLine(skill.whenToUse ? `${skill.description} ${skill.whenToUse}` : skill.description),
  }));
  if (entries.length === 0) return "";
  const budget = Math.max(0, options.budgetChars);
  const render = (count: number, limit: number): string => {
    const lines = entries.slice(0, count).map((entry) => `- ${entry.name}: ${shorten(entry.text, limit)}`);
    const left = entries.length - count;
    if (left > 0) lines.push(overflowNote(left));
    return lines.join("\n");
  };

  const full = render(entries.length, MAX_ENTRY_CHARS);
  if (full.length <= budget) return full;
  // The longest common description limit that fits, by binary search.
  let low = MIN_DESCRIPTION_CHARS;
  let high = MAX_ENTRY_CHARS;
  if (render(entries.length, low).length <= budget) {
    while (low < high) {
      const mid = Math.ceil((low + high) / 2);
      if (render(entries.length, mid).length <= budget) low = mid;
      else high = mid - 1;
    }
    return render(entries.length, low);
  }
  for (let count = entries.length - 1; count >= 0; count -= 1) {
    const text = render(count, MIN_DESCRIPTION_CHARS);
    if (text.length <= budget) return text;
  }
  return "";
}

function overflowNote(count: number): string {
  return `(${count} more skill${count === 1 ? "" : "s"} not listed: call skill with a name from /skills)`;
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

function shorten(text: string, limit: number): string {
  if (text.length <= limit) return text;
  return `${text.slice(0, Math.max(0, limit - 1)).trimEnd()}…`;
}
