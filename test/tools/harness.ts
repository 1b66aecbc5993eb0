// A registry with the built-in tools over a real temporary workspace, and a one-line way to
// call a tool the way the loop does.
import {
  type BuiltinToolsOptions,
  createBuiltinTools,
  ToolRegistry,
  type ToolResult,
} from "../../src/tools/index.js";
import { Workspace, type WorkspaceOptions } from "../../src/workspace/index.js";
import { makeTempLayout, type TempLayout } from "../workspace/temp-dirs.js";

export interface Harness {
  layout: TempLayout;
  workspace: Workspace;
  registry: ToolRegistry;
  call(name: string, args: Record<string, unknown>, signal?: AbortSignal): Promise<ToolResult>;
  /** `call` over the same workspace with the built-ins configured differently. */
  variant(tools: BuiltinToolsOptions): Harness["call"];
  cleanup(): Promise<void>;
}

function caller(registry: ToolRegistry, workspace: Workspace): Harness["call"] {
  return (name, args, signal = new AbortController().signal) => {
    nextId += 1;
    return registry.execute(
      { id: `call-${nextId}`, name, arguments: args },
      { workspace, signal, runId: "run-test", toolCallId: `call-${nextId}` },
    );
  };
}

let nextId = 0;

export async function makeHarness(
  options: { tools?: BuiltinToolsOptions; workspace?: WorkspaceOptions; maxOutputChars?: number } = {},
): Promise<Harness> {
  const layout = await makeTempLayout();
  const workspace = await Workspace.open(layout.root, options.workspace);
  const registry = new ToolRegistry(
    options.maxOutputChars === undefined ? {} : { maxOutputChars: options.maxOutputChars },
  );
  for (const tool of createBuiltinTools(options.tools)) registry.register(tool);
  return {
    layout,
    workspace,
    registry,
    call: caller(registry, workspace),
    variant(tools) {
      const other = new ToolRegistry();
      for (const tool of createBuiltinTools(tools)) other.register(tool);
      return caller(other, workspace);
    },
    cleanup: () => layout.cleanup(),
  };
}
