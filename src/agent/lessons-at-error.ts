// Lessons found by what a failed call printed: a task worded unlike every lesson still runs
// into the trouble a lesson was learnt from, and its output says so (learning.ts atError). The
// lesson follows the output in the result the model sees and the run records, once per run,
// and a few per run at most: a rule the run was shown at its start, or withheld from it (the
// holdout that measures whether rules help), is not shown again.
import { errorLessonNote } from "../memory/index.js";
import type { AgentHooks } from "./hooks.js";
import type { Learning } from "./learning.js";

/** Lessons shown at errors in one run, at most. */
const MAX_PER_RUN = 3;

export function lessonsAtError(
  learning: Learning,
  run: { traceId: string; shownIds: readonly string[]; warn: (message: string) => void },
): AgentHooks {
  const exclude = new Set(run.shownIds);
  let shown = 0;
  return {
    async afterToolCall(_call, result) {
      if (result.ok || shown >= MAX_PER_RUN || result.error?.code === "tool_denied") return undefined;
      const output = [result.error?.message ?? "", result.content].filter(Boolean).join("\n");
      if (output.trim() === "") return undefined;
      let found: Awaited<ReturnType<Learning["atError"]>>;
      try {
        found = await learning.atError(output, run.traceId, exclude);
      } catch (error) {
        run.warn(`looking up lessons for an error failed: ${(error as Error).message}`);
        return undefined;
      }
      if (!found) return undefined;
      exclude.add(found.experience.id);
      shown++;
      const note = errorLessonNote(found.experience, found.phrase);
      return {
        ...result,
        content: result.content === "" ? note : `${result.content}\n\n${note}`,
        ...(result.longTermMemory ? { longTermMemory: `${result.longTermMemory}\n\n${note}` } : {}),
      };
    },
  };
}
