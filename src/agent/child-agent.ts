// What a sub-agent is made of and how its run starts. It runs as an agent of its own: the
// preset's tools (never subagent) in a fresh registry, a workspace of its own (read-only where
// asked), the parent's provider unless the preset names another model, and the parent's hooks
// (the same array: the same permission checks). Its run starts from its brief alone, in the
// parent's session, with a budget under the parent's.
import { type BrowserPool, createBrowserTools } from "../browser/index.js";
import { type Preset, type ResonConfig, resonHome } from "../config/index.js";
import { createProvider, type Provider } from "../providers/index.js";
import type { SkillSet } from "../skills/index.js";
import type { TraceRecord } from "../store/index.js";
import type { ToolRegistry } from "../tools/index.js";
import type { Workspace } from "../workspace/index.js";
import type { ActiveRun } from "./active-runs.js";
import { type AgentOptions, type SubagentSetup, withPreset } from "./agent-options.js";
import { agentTools } from "./agent-tools.js";
import type { RunBudget } from "./budget.js";
import type { AgentHooks } from "./hooks.js";
import type { LoopStart } from "./loop-start.js";
import type { ChildSpec } from "./subagent-tool.js";
import { openWorkspace } from "./workspace-trust.js";

/** The parts of the agent a sub-agent runs as (the store, skills and secrets are the parent's). */
export interface ChildAgentParts {
  workspace: Workspace;
  provider: Provider;
  tools: ToolRegistry;
  options: AgentOptions;
  /** The parent's browsers, for a sub-agent that may act; none for a read-only one. */
  browsers: BrowserPool | undefined;
}

/** One agent per preset and read-only state, made on first use. */
export function childAgentKey(preset: Preset, readOnly: boolean): string {
  return `${preset.name}\u0000${preset.source}\u0000${readOnly}`;
}

export async function childAgentParts(
  setup: SubagentSetup,
  preset: Preset,
  readOnly: boolean,
  parent: {
    workspaceRoot: string;
    provider: Provider;
    browsers: BrowserPool | undefined;
    config: ResonConfig;
    skills: SkillSet;
    hooks: AgentHooks[];
  },
): Promise<ChildAgentParts> {
  const childReadOnly = readOnly || preset.readOnly === true;
  const workspace = await openWorkspace(parent.workspaceRoot, {
    env: setup.env,
    commandSandbox: setup.commandSandbox,
    policy: {
      resonHome: resonHome(setup.env),
      readOnly: childReadOnly,
      ...(setup.options.nestedRepositories ? { nested: setup.options.nestedRepositories } : {}),
    },
    ...(setup.options.textFiles ? { textFiles: setup.options.textFiles } : {}),
  });
  const provider =
    preset.model && preset.model !== parent.provider.model.id
      ? await createProvider({ ...setup.settings, model: preset.model }, setup.providerOptions)
      : parent.provider;
  const browsers = childReadOnly ? undefined : parent.browsers;
  const { tools } = await agentTools({
    config: parent.config,
    preset,
    readOnly: childReadOnly,
    commandSandbox: setup.commandSandbox,
    extra: [...(setup.options.tools ?? []), ...(browsers ? createBrowserTools(browsers) : [])],
    skills: parent.skills,
    contextWindow: provider.model.contextWindow,
  });
  // A sub-agent runs unattended, often beside others: it has no one to ask.
  const { askHuman: _unattended, ...shared } = setup.options;
  const options = withPreset({ ...shared, hooks: parent.hooks, preset }, preset);
  return { workspace, provider, tools, options, browsers };
}

/**
 * Where a sub-agent's run starts: its trace under the parent's (`own`: the trace the child
 * agent makes for it), its brief sent by the parent run with no history, its budget.
 */
export function childRunStart(
  parent: ActiveRun,
  spec: ChildSpec,
  own: TraceRecord,
): { trace: TraceRecord; start: LoopStart; budget: RunBudget } {
  const trace: TraceRecord = { ...own, parentTraceId: parent.trace.id };
  const start: LoopStart = {
    kind: "new",
    task: spec.task,
    envelope: {
      receivedAt: own.startedAt,
      channel: "subagent",
      chatType: "direct",
      senderId: parent.trace.id,
    },
    history: [],
  };
  return { trace, start, budget: parent.budget.child(spec.limits) };
}
