// Once a run has read untrusted content, what its calls leave as compiled Python is removed. A
// fooled command can write `pkg/__pycache__/mod.cpython-3XY.pyc` with a header that matches
// `pkg/mod.py`: the user's next `python`, outside any sandbox, runs it instead of the source,
// and neither `git diff` nor the run's snapshots show it (__pycache__ is ignored). An extension
// module it builds beside `mod.py` (`mod.cpython-311-x86_64-linux-gnu.so`, *.so ignored too) is
// imported in the source's place the same way. Removing either is always safe: Python compiles a
// .pyc again from the source, and imports the source an extension hid. The workspace is looked
// at once before the run's first such call, then again after each (workspace/compiled-python.ts).
import type { UntrustedSource } from "../core/events.js";
import { namedList } from "../core/named-list.js";
import type { ToolCallRequest, ToolDefinition } from "../tools/index.js";
import { CompiledPythonFiles, type CompiledRemoval, type Workspace } from "../workspace/index.js";
import { describeSource } from "./run-trust.js";

/** Paths named in a note at most. */
const MAX_NAMED = 5;

export class CompiledPythonGuard {
  private files: CompiledPythonFiles | undefined;

  constructor(private readonly workspace: Workspace) {}

  /** Whether the call is guarded: one that may change files, in a run that has read untrusted content. */
  covers(tool: ToolDefinition | undefined, untrusted: readonly UntrustedSource[] | undefined): boolean {
    if (!untrusted || untrusted.length === 0 || this.workspace.policy.readOnly) return false;
    return tool !== undefined && !tool.readOnly && tool.changesFiles !== false;
  }

  /** Before a guarded call: the workspace's compiled files as they are (read the first time only). */
  before(): string | undefined {
    try {
      this.files ??= new CompiledPythonFiles(this.workspace.root);
      this.files.lookOnce();
      return undefined;
    } catch (error) {
      return `reson could not look for compiled Python files in the workspace: ${(error as Error).message}.`;
    }
  }

  /** After a guarded call: what it wrote or changed removed, and what the user and the model are told. */
  after(call: ToolCallRequest, untrusted: readonly UntrustedSource[]): string | undefined {
    if (!this.files) return undefined;
    let removal: CompiledRemoval;
    try {
      removal = this.files.removeChanged();
    } catch (error) {
      return `reson could not look for compiled Python files this ${call.name} call wrote: ${(error as Error).message}; the user should check __pycache__ folders and *.so files beside Python sources before running Python here.`;
    }
    return compiledNote(removal, untrusted);
  }
}

/** "<what>s a, b, <why>" for `paths`, or nothing when there are none. */
function told(paths: readonly string[], what: string, why: string): string[] {
  if (paths.length === 0) return [];
  return [`${what}${paths.length === 1 ? "" : "s"} ${namedList(paths, MAX_NAMED)}, ${why}`];
}

/** What the model (and the trace) is told after its call wrote compiled Python files. */
export function compiledNote(
  removal: Pick<CompiledRemoval, "removed" | "failed">,
  untrusted: readonly UntrustedSource[],
): string | undefined {
  const { removed, failed } = removal;
  if (removed.length === 0 && failed.length === 0) return undefined;
  const bytecode = (paths: readonly string[]) => paths.filter((path) => path.endsWith(".pyc"));
  const extensions = (paths: readonly string[]) => paths.filter((path) => !path.endsWith(".pyc"));
  const call = "which this call wrote or changed";
  // An extension is judged against the run's first look: a later call can bring back the source.
  const run = "which this run wrote or changed beside the Python source of the same name";
  const deleteIt = "; the user should delete it before running Python here";
  const parts = [
    ...told(bytecode(removed), "reson removed the compiled Python file", call),
    ...told(extensions(removed), "reson removed the extension module", run),
    ...told(bytecode(failed), "reson could not remove the compiled Python file", call + deleteIt),
    ...told(extensions(failed), "reson could not remove the extension module", run + deleteIt),
  ];
  return (
    `${parts.join("; ")}: this run has read untrusted content (${describeSource(untrusted[0]!)}), and Python ` +
    "runs a compiled file in place of its source, unseen by git diff; without it Python runs the source again."
  );
}
