// Pinned outputs (a skill loaded with the skill tool): trimming leaves them whole, and where a
// compaction summarises or the goal view folds the part holding them, they come back beside
// the summary, newest copy per key only, within the caps, the same bytes on every call.
import { describe, expect, it } from "vitest";
import {
  applyCompaction,
  applyGoalView,
  applyTrim,
  type Compaction,
  type HistoryEntry,
  renderHistory,
} from "../../src/context/index.js";
import type { AssistantMessage, ToolResultMessage } from "../../src/providers/index.js";
import { GoalTree } from "../../src/tools/index.js";

const USAGE = {
  input: 0,
  output: 0,
  cacheRead: 0,
  cacheWrite: 0,
  totalTokens: 0,
  cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
};

const task: HistoryEntry = { step: 0, message: { role: "user", content: "Fill the form", timestamp: 1 } };

/** One step calling one tool; `pinAs` marks the result as a pinned output (as the loop does). */
function step(
  n: number,
  tool: string,
  text: string,
  options: { pinAs?: string; goalId?: string; isError?: boolean } = {},
): [HistoryEntry, HistoryEntry] {
  const id = `call-${n}`;
  const assistant: AssistantMessage = {
    role: "assistant",
    content: [{ type: "toolCall", id, name: tool, arguments: {} }],
    api: "openai-completions",
    provider: "openai",
    model: "test",
    usage: USAGE,
    stopReason: "toolUse",
    timestamp: n,
  };
  const result: ToolResultMessage = {
    role: "toolResult",
    toolCallId: id,
    toolName: tool,
    content: [{ type: "text", text }],
    isError: options.isError ?? false,
    timestamp: n,
    details: { ok: true, ...(options.pinAs ? { pinAs: options.pinAs } : {}) },
  };
  const tag = options.goalId ? { goalId: options.goalId } : {};
  return [
    { step: n, message: assistant, ...tag },
    { step: n, message: result, ...tag },
  ];
}

const skillText = (name: string, body: string) =>
  `<skill_content name="${name}">\n# Skill: ${name}\n\n${body}\n</skill_content>`;
const textOf = (entries: HistoryEntry[]) => JSON.stringify(renderHistory(entries, 99));
const BIG = "x".repeat(2_000);

describe("pinned outputs", () => {
  it("are not trimmed, while other old outputs are", () => {
    const history = [
      task,
      ...step(1, "skill", skillText("pdf-forms", `Use scripts/fill.py. ${BIG}`), {
        pinAs: "skill:pdf-forms",
      }),
      ...step(2, "read_file", `file contents ${BIG}`),
      ...step(3, "read_file", "recent"),
    ];
    const view = textOf(applyTrim(history, 5));
    expect(view).toContain("Use scripts/fill.py.");
    expect(view).not.toContain("file contents");
    expect(view).toContain("trimmed from context");
  });

  it("come back beside the compaction summary, only the newest copy of each, in history order", () => {
    const history = [
      task,
      ...step(1, "skill", skillText("pdf-forms", "OLD pdf instructions"), { pinAs: "skill:pdf-forms" }),
      ...step(2, "skill", skillText("changelog", "Changelog rules"), { pinAs: "skill:changelog" }),
      ...step(3, "read_file", "a file the summary stands for"),
      ...step(4, "skill", skillText("pdf-forms", "NEW pdf instructions"), { pinAs: "skill:pdf-forms" }),
      ...step(5, "read_file", "recent"),
    ];
    const compaction: Compaction = { upTo: 9, summary: "## Goal\nFill the form.", count: 1 };
    const view = applyCompaction(history, compaction, 0);
    const summary = view[1]!.message.content as string;
    expect(summary).toContain("## Goal\nFill the form.");
    expect(summary).toContain("Changelog rules");
    expect(summary).toContain("NEW pdf instructions");
    expect(summary).not.toContain("OLD pdf instructions");
    expect(summary).not.toContain("a file the summary stands for");
    // The same object on every call: the bytes sent for it never change.
    expect(applyCompaction(history, compaction, 0)[1]).toBe(view[1]);

    // Loaded again after the cut: the copy in view is the one that counts, none is re-attached.
    const later = [
      ...history,
      ...step(6, "skill", skillText("changelog", "Changelog v2"), { pinAs: "skill:changelog" }),
    ];
    const again = applyCompaction(later, compaction, 0)[1]!.message.content as string;
    expect(again).not.toContain("Changelog rules");
    expect(again).toContain("NEW pdf instructions");
  });

  it("keep the newest within the caps: an older one is cut or named in a note", () => {
    const history = [
      task,
      ...step(1, "skill", skillText("first", `FIRST ${"a".repeat(5_000)}`), { pinAs: "skill:first" }),
      ...step(2, "skill", skillText("second", `SECOND ${"b".repeat(5_000)}`), { pinAs: "skill:second" }),
      ...step(3, "read_file", "recent"),
    ];
    const compaction: Compaction = { upTo: 5, summary: "S", count: 1 };
    const summary = (options: { maxChars: number; maxEachChars?: number }) =>
      applyCompaction(history, compaction, 0, options)[1]!.message.content as string;
    const tight = summary({ maxChars: 5_500 });
    expect(tight).toContain("SECOND");
    expect(tight).not.toContain("FIRST");
    expect(tight).toContain("Not kept, for lack of room: skill:first");
    const cut = summary({ maxChars: 8_000 });
    expect(cut).toContain("FIRST");
    expect(cut).toContain("more characters cut here");
    expect(summary({ maxChars: 100_000, maxEachChars: 1_000 })).toMatch(/SECOND b+\n\[… \d+ more characters/);
  });

  it("survive a second compaction through the summary that carries them", () => {
    const history = [
      task,
      ...step(1, "skill", skillText("pdf-forms", "PDF RULES"), { pinAs: "skill:pdf-forms" }),
      ...step(2, "read_file", "one"),
      ...step(3, "read_file", "two"),
    ];
    const first = applyCompaction(history, { upTo: 3, summary: "S1", count: 1 }, 0);
    // A session compacted with /compact starts its next run from such a summary entry.
    const next = [first[1]!, ...step(10, "read_file", "three"), ...step(11, "read_file", "four")];
    const second = applyCompaction(next, { upTo: 3, summary: "S2", count: 2 }, -1);
    expect(second[0]!.message.content as string).toContain("PDF RULES");
  });

  it("stay in view when the goal view folds the goal they were loaded for", () => {
    const tree = new GoalTree();
    tree.add("Fill the form");
    tree.add("Read the field list", "g1");
    tree.focus("g2");
    const history = [
      task,
      ...step(1, "skill", skillText("pdf-forms", "PDF RULES"), { pinAs: "skill:pdf-forms", goalId: "g2" }),
      ...step(2, "read_file", "FIELD-LIST-OUTPUT", { goalId: "g2" }),
    ];
    tree.done("g2", "Listed the fields.");
    const view = applyGoalView(history, tree);
    expect(view).toHaveLength(2);
    const folded = view[1]!.message.content as string;
    expect(folded).toContain("Listed the fields.");
    expect(folded).toContain("PDF RULES");
    expect(folded).not.toContain("FIELD-LIST-OUTPUT");
    expect(applyGoalView(history, tree)[1]).toBe(view[1]);
  });

  it("a failed skill call is not pinned", () => {
    const failed = step(1, "skill", "Error [not_found]: no skill", { pinAs: "skill:nope", isError: true });
    const view = applyCompaction(
      [task, ...failed, ...step(2, "read_file", "x")],
      { upTo: 3, summary: "S", count: 1 },
      0,
    );
    expect(view[1]!.message.content as string).not.toContain("no skill");
  });
});
