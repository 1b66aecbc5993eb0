// The context section that carries experiences into a run: each rule with its condition and
// its record, so the model can weigh a rule that usually helps against one that is new.
import { bayesianSuccessRate } from "./ranking.js";

export interface SectionExperience {
  id: string;
  condition: string;
  rule: string;
  usageCount: number;
  successCount: number;
  failureCount: number;
}

export const EXPERIENCES_HEADING = "Lessons from earlier runs in this project";

/** The section text, or "" when there is nothing to say. */
export function experiencesSection(experiences: readonly SectionExperience[]): string {
  if (experiences.length === 0) return "";
  const lines = [
    `${EXPERIENCES_HEADING} (learnt from what worked and what failed; follow them where they apply):`,
  ];
  for (const experience of experiences) {
    const used = experience.successCount + experience.failureCount;
    const record =
      used === 0
        ? "new"
        : `helped ${experience.successCount} of ${used} times, ${Math.round(
            bayesianSuccessRate(experience.successCount, experience.failureCount) * 100,
          )} %`;
    lines.push(`- [${experience.id}] When ${experience.condition}: ${experience.rule} (${record})`);
  }
  return lines.join("\n");
}

/** What follows a failed call's output when a lesson matches it (error-match.ts). */
export function errorLessonNote(experience: SectionExperience, phrase: string | undefined): string {
  const found = phrase === undefined ? "" : ` (the output has "${phrase}")`;
  return [
    `[reson] A lesson from earlier runs in this project matches this error${found}; follow it if it applies:`,
    experiencesSection([experience]).split("\n").slice(1).join("\n"),
  ].join("\n");
}
