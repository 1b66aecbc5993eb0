// The system prompt a run starts with: the core skill, the baseline facts (workspace, platform,
// date, the caller's instructions, the secrets' names), the instruction files, and for a
// top-level run what memory recalls for its task. What went wrong making the agent or reading
// these (config, instruction files, skills, secrets, recall) is a warning on the run's events.
import type { LoadedConfig } from "../config/index.js";
import { assembleSystemPrompt, loadInstructions, type SystemPrompt } from "../context/index.js";
import { toResonError } from "../core/errors.js";
import type { SkillSet } from "../skills/index.js";
import type { TraceRecord } from "../store/index.js";
import type { AgentSecrets } from "./agent-options.js";
import type { Learning, Recall } from "./learning.js";

export async function runPrompt(input: {
  trace: TraceRecord;
  workspaceRoot: string;
  loaded: LoadedConfig;
  skills: SkillSet;
  secrets: AgentSecrets | undefined;
  /** The caller's instructions (appended to the baseline). */
  instructions: string | undefined;
  /** Undefined for a run that recalls nothing (a sub-agent works from its brief). */
  learning: Learning | undefined;
  signal: AbortSignal;
  warn: (message: string) => void;
}): Promise<{ system: SystemPrompt; recall: Recall | undefined }> {
  const { trace, loaded, skills, secrets, learning, warn } = input;
  const instructions = await loadInstructions({
    workspaceRoot: input.workspaceRoot,
    home: loaded.home,
    signal: input.signal,
  });
  for (const message of [
    ...loaded.warnings,
    ...instructions.warnings,
    ...skills.warnings,
    ...(secrets?.warnings ?? []),
  ]) {
    warn(message);
  }
  const recall = !learning
    ? undefined
    : await learning.recall(trace.task, trace.id, trace.sessionId, input.signal).catch((error: unknown) => {
        warn(`memory recall failed: ${toResonError(error).message}`);
        return undefined;
      });
  const core = skills.core;
  const system = assembleSystemPrompt({
    ...(core ? { coreSkill: core } : {}),
    baseline: {
      workspaceRoot: input.workspaceRoot,
      platform: `${process.platform} ${process.arch}`,
      date: new Date(trace.startedAt).toISOString().slice(0, 10),
      ...(input.instructions ? { instructions: input.instructions } : {}),
      ...(secrets && secrets.names.length > 0 ? { secrets: secrets.names } : {}),
    },
    instructions: instructions.files,
    ...(recall?.text ? { memory: recall.text } : {}),
  });
  return { system, recall };
}
