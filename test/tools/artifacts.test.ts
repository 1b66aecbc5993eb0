// Outputs too large for the context are kept whole as artifacts in the store (a real SQLite
// file here, wired as the agent wires it), the cut result names the artifact, and
// read_artifact pages through it.
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Type } from "typebox";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ulid } from "../../src/core/ids.js";
import { openStore, type Store } from "../../src/store/index.js";
import {
  createBuiltinTools,
  historyText,
  type ToolContext,
  type ToolDefinition,
  ToolRegistry,
  type ToolResult,
} from "../../src/tools/index.js";
import { Workspace } from "../../src/workspace/index.js";
import { session, T0, trace } from "../store/fixtures.js";
import { makeTempLayout, type TempLayout } from "../workspace/temp-dirs.js";

let layout: TempLayout;
let workspace: Workspace;
let home: string;
let store: Store;
let traceId: string;
const saved: string[] = [];

beforeAll(async () => {
  layout = await makeTempLayout();
  workspace = await Workspace.open(layout.root);
  home = await mkdtemp(join(tmpdir(), "reson-artifacts-"));
  store = await openStore({ home });
  const s = session();
  const t = trace(s.id, { status: "completed", endedAt: T0 + 1 });
  traceId = t.id;
  await store.apply([
    { op: "insertSession", session: s },
    { op: "insertTrace", trace: t },
  ]);
});

afterAll(async () => {
  await store.close();
  await rm(home, { recursive: true, force: true });
  await layout.cleanup();
});

/** The agent's wiring: artifacts go to the store under the run's trace. */
const storeArtifacts: Pick<ToolContext, "saveArtifact" | "readArtifact"> = {
  async saveArtifact(content, meta) {
    const id = ulid();
    await store.apply([
      {
        op: "putArtifact",
        artifact: {
          id,
          traceId,
          toolCallId: meta.toolCallId,
          name: meta.tool,
          content,
          chars: content.length,
          createdAt: Date.now(),
        },
      },
    ]);
    saved.push(`${meta.tool}:${meta.toolCallId}`);
    return id;
  },
  readArtifact: (id, offset, limit) => store.artifacts.read(id, offset, limit),
};

const numbered = (n: number, from = 1) => Array.from({ length: n }, (_, i) => `row ${from + i}`).join("\n");

function printer(content: string, extra: Partial<ToolDefinition> = {}): ToolDefinition {
  return {
    name: "print",
    description: "prints",
    parameters: Type.Object({}),
    readOnly: true,
    async execute() {
      return { content, longTermMemory: "printed the rows", includeOutputOnlyOnce: true };
    },
    ...extra,
  };
}

let callNumber = 0;
function call(
  registry: ToolRegistry,
  name: string,
  args: Record<string, unknown> = {},
  ctx: Partial<ToolContext> = storeArtifacts,
): Promise<ToolResult> {
  callNumber += 1;
  const id = `call-${callNumber}`;
  const signal = new AbortController().signal;
  return registry.execute(
    { id, name, arguments: args },
    { workspace, signal, runId: "run-1", toolCallId: id, ...ctx },
  );
}

function withBuiltins(registry: ToolRegistry): ToolRegistry {
  for (const tool of createBuiltinTools()) registry.register(tool);
  return registry;
}

function artifactIdOf(result: ToolResult): string {
  const id = result.meta.artifactId;
  if (id === undefined) throw new Error("no artifact was saved");
  return id;
}

describe("large outputs become artifacts", () => {
  it("a cut output is saved whole, and the marker names the artifact and where to read on", async () => {
    const content = numbered(3000);
    const registry = withBuiltins(new ToolRegistry({ maxOutputLines: 100 }).register(printer(content)));
    const result = await call(registry, "print");
    const id = artifactIdOf(result);
    expect(result.meta.truncated).toBe(true);
    expect(result.content).toBe(
      `${numbered(100)}\n\n[Output truncated: 2900 more lines (${content.length - numbered(100).length} characters) not shown. ` +
        `Full output (3000 lines, ${content.length} chars) saved as artifact ${id}; ` +
        `page through it with read_artifact {"id": "${id}", "offset": 101}.]`,
    );
    expect(await store.artifacts.get(id)).toMatchObject({
      traceId,
      name: "print",
      content,
      chars: content.length,
    });
    // The line that stays in history still says where the whole output is.
    expect(historyText(result, { firstShow: false })).toBe(`printed the rows [full output: artifact ${id}]`);
  });

  it("read_artifact pages through it from the offset the marker gave, to the end", async () => {
    const small = new ToolRegistry({ maxOutputLines: 100 }).register(printer(numbered(250)));
    const id = artifactIdOf(await call(small, "print"));
    const registry = withBuiltins(new ToolRegistry());
    const page = await call(registry, "read_artifact", { id, offset: 101, limit: 100 });
    expect(page.ok).toBe(true);
    const lines = page.content.split("\n");
    expect(lines[0]).toBe("   101\trow 101");
    expect(lines[99]).toBe("   200\trow 200");
    expect(lines.at(-1)).toBe(
      `[Lines 101-200 of 250. Call read_artifact with id="${id}" and offset=201 to read more.]`,
    );
    expect(page.longTermMemory).toBe(`read artifact ${id} lines 101-200 of 250`);
    const last = await call(registry, "read_artifact", { id, offset: 201 });
    expect(last.content.split("\n").at(-1)).toBe("[Lines 201-250 of 250; end of artifact.]");
    expect(last.content.split("\n")).toHaveLength(52);
    // A page too long for the context is cut with its own way on, never saved again.
    const cut = await call(
      small.register(createBuiltinTools().find((t) => t.name === "read_artifact")!),
      "read_artifact",
      {
        id,
        offset: 11,
        limit: 200,
      },
    );
    expect(cut.meta).toMatchObject({ truncated: true });
    expect(cut.meta.artifactId).toBeUndefined();
    expect(cut.content).toContain(`Call read_artifact with id="${id}" and offset=${11 + 100} to read more.]`);
    expect(saved.filter((s) => s.startsWith("read_artifact"))).toEqual([]);
  });

  it("read_artifact keeps empty lines and says when the offset is past the end or the id unknown", async () => {
    const small = new ToolRegistry({ maxOutputLines: 2 }).register(printer("a\n\n\nb\n\n"));
    const id = artifactIdOf(await call(small, "print"));
    const registry = withBuiltins(new ToolRegistry());
    const page = await call(registry, "read_artifact", { id, offset: 2, limit: 2 });
    expect(page.content).toBe(
      `     2\t\n     3\t\n\n[Lines 2-3 of 5. Call read_artifact with id="${id}" and offset=4 to read more.]`,
    );
    const past = await call(registry, "read_artifact", { id, offset: 6 });
    expect(past.error).toMatchObject({
      code: "tool_invalid_arguments",
      message: `offset 6 is past the end of artifact ${id}, which has 5 lines.`,
    });
    const unknown = await call(registry, "read_artifact", { id: "01NOSUCHARTIFACT0000000000" });
    expect(unknown.error).toMatchObject({
      code: "not_found",
      message: 'There is no artifact "01NOSUCHARTIFACT0000000000".',
    });
    const unwired = await call(registry, "read_artifact", { id }, {});
    expect(unwired.error).toMatchObject({
      code: "tool_failed",
      message: "Artifacts are not available in this run.",
    });
  });

  it("an output cut by characters, keeping head and tail, points at the first line left out", async () => {
    const content = numbered(40);
    const tool = printer(content, { truncation: "head_and_tail" });
    const registry = new ToolRegistry({ maxOutputChars: 200 }).register(tool);
    const result = await call(registry, "print");
    const id = artifactIdOf(result);
    expect(result.content.startsWith(`${numbered(15)}\n\n[Output truncated: 11 lines`)).toBe(true);
    expect(result.content).toContain(`read_artifact {"id": "${id}", "offset": 16}.]`);
    expect(result.content.endsWith(numbered(14, 27))).toBe(true);
  });

  it("artifactThresholdChars cuts earlier where artifacts can be kept, and only there", async () => {
    const content = "x".repeat(80).concat("\n").repeat(100);
    const registry = new ToolRegistry({ maxOutputChars: 5_000, artifactThresholdChars: 1_000 }).register(
      printer(content),
    );
    const kept = await call(registry, "print");
    expect(kept.meta.artifactId).toBeDefined();
    expect(kept.content.indexOf("\n\n[Output truncated")).toBeLessThanOrEqual(1_000);
    const plain = await call(registry, "print", {}, {});
    expect(plain.meta.artifactId).toBeUndefined();
    expect(plain.content.indexOf("\n\n[Output truncated")).toBeGreaterThan(4_000);
  });

  it("without saveArtifact, or for a short output, nothing changes", async () => {
    const registry = new ToolRegistry({ maxOutputLines: 10 }).register(printer(numbered(25)));
    const plain = await call(registry, "print", {}, {});
    expect(plain.meta).not.toHaveProperty("artifactId");
    expect(
      plain.content.endsWith(
        "not shown. Ask for less at a time (a narrower path, pattern or range) to see the rest.]",
      ),
    ).toBe(true);
    expect(plain.longTermMemory).toBe("printed the rows");
    const before = saved.length;
    const short = await call(new ToolRegistry().register(printer("short")), "print");
    expect(short).toMatchObject({ content: "short", meta: { truncated: false } });
    expect(saved.length).toBe(before);
  });

  it("read_file is not copied into artifacts: the file can be read again by range", async () => {
    await writeFile(join(layout.root, "big.txt"), `${numbered(300)}\n`);
    const registry = withBuiltins(new ToolRegistry({ maxOutputLines: 50 }));
    const before = saved.length;
    const result = await call(registry, "read_file", { path: "big.txt" });
    expect(result.meta.truncated).toBe(true);
    expect(result.meta.artifactId).toBeUndefined();
    expect(result.content).toContain('Call read_file with path="big.txt" and offset=51 to read more.');
    expect(saved.length).toBe(before);
  });

  it("when the artifact cannot be saved, the output is cut as before and the marker says why", async () => {
    const registry = new ToolRegistry({ maxOutputLines: 10 }).register(printer(numbered(25)));
    const result = await call(
      registry,
      "print",
      {},
      {
        saveArtifact: async () => {
          throw new Error("disk full");
        },
      },
    );
    expect(result.ok).toBe(true);
    expect(result.meta.artifactId).toBeUndefined();
    expect(result.content.endsWith("The full output could not be saved as an artifact (disk full).]")).toBe(
      true,
    );
  });

  // Last: it deletes the trace the other tests save under.
  it("gc removes the artifacts of the traces it deletes, and read_artifact then says so", async () => {
    const registry = withBuiltins(new ToolRegistry({ maxOutputLines: 5 }).register(printer(numbered(20))));
    const id = artifactIdOf(await call(registry, "print"));
    expect((await call(registry, "read_artifact", { id })).ok).toBe(true);
    const report = await store.gc(T0 + 2);
    expect(report.traces).toBe(1);
    expect(report.artifacts).toBeGreaterThanOrEqual(1);
    expect(await store.artifacts.get(id)).toBeUndefined();
    expect((await call(registry, "read_artifact", { id })).error?.code).toBe("not_found");
  });
});
