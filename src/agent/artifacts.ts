// Where tool outputs too large for the context are kept whole, for read_artifact to page
// through: in the store with the run (removed by gc with it), or in memory for runs that are
// not persisted.
import { ulid } from "../core/ids.js";
import type { Store, WriteOp } from "../store/index.js";
import type { ArtifactPage } from "../tools/index.js";
import type { ArtifactKeeper } from "./run-state.js";

/** `write`: how the run writes its batches (fenced by its lease); default the store's apply. */
export function storeArtifacts(
  store: Store,
  write: (ops: WriteOp[]) => Promise<void> = (ops) => store.apply(ops),
): ArtifactKeeper {
  return {
    async save(content, meta) {
      const id = ulid();
      await write([
        {
          op: "putArtifact",
          artifact: {
            id,
            traceId: meta.runId,
            toolCallId: meta.toolCallId,
            name: meta.tool,
            content,
            chars: content.length,
            createdAt: Date.now(),
          },
        },
      ]);
      return id;
    },
    read: (id, offset, limit) => store.artifacts.read(id, offset, limit),
  };
}

export function memoryArtifacts(): ArtifactKeeper {
  const kept = new Map<string, string[]>();
  return {
    async save(content) {
      const id = ulid();
      const lines = content.split("\n");
      // A final newline ends the last line; it does not start another (as in the store).
      if (lines.length > 1 && lines.at(-1) === "") lines.pop();
      kept.set(id, lines);
      return id;
    },
    async read(id, offset, limit): Promise<ArtifactPage | undefined> {
      const lines = kept.get(id);
      if (!lines) return undefined;
      return { text: lines.slice(offset - 1, offset - 1 + limit).join("\n"), totalLines: lines.length };
    },
  };
}
