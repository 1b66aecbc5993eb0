// The read-only `recall` tool: the model searches the project's lessons and earlier sessions
// in its own words, e.g. right after an error message appears that the task did not mention.
// Lessons it is given count as shown in the run, so the run's outcome counts for them.
import { Type } from "typebox";
import type { Experience } from "../store/index.js";
import type { ToolDefinition } from "../tools/index.js";
import { experiencesSection } from "./experiences/section.js";
import { memorySection, quotedOrigin, type ShownMemory } from "./memory-section.js";

export interface RecallFound {
  experiences: Experience[];
  memories: (ShownMemory & { id: string })[];
}

/** What the tool asks of learning: a search in the model's words, noted against the run. */
export interface RecallSource {
  lookUp(query: string, traceId: string, signal?: AbortSignal): Promise<RecallFound>;
}

const parameters = Type.Object(
  {
    query: Type.String({
      minLength: 2,
      maxLength: 1000,
      description:
        "What to look for: an error message, a symptom, a tool or file name, or what you are about to do.",
    }),
  },
  { additionalProperties: false },
);

export const RECALL_TOOL = "recall";

export function recallTool(source: RecallSource): ToolDefinition<typeof parameters> {
  return {
    name: RECALL_TOOL,
    description:
      "Search the lessons learnt in earlier runs of this project, and what earlier sessions said, for a " +
      "query in your own words. Use it when an error or a situation appears that the task did not mention " +
      "(paste the error message). Read-only.",
    parameters,
    readOnly: true,
    async execute(args, ctx) {
      const found = await source.lookUp(args.query, ctx.runId, ctx.signal);
      const parts: string[] = [];
      const section = experiencesSection(found.experiences);
      if (section) parts.push(section);
      const memories = memorySection("From earlier sessions", found.memories);
      if (memories) parts.push(memories);
      // What a run wrote after reading untrusted content reaches this run's model now.
      const untrustedOrigin = quotedOrigin(found.memories);
      return {
        ...(untrustedOrigin ? { untrustedOrigin } : {}),
        content:
          parts.length > 0 ? parts.join("\n\n") : `Nothing learnt matches ${JSON.stringify(args.query)}.`,
        longTermMemory: `recall ${JSON.stringify(args.query.slice(0, 80))}: ${found.experiences.length} lessons, ${found.memories.length} memories`,
      };
    },
  };
}
