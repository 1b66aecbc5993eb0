// The approval prompt's diff: minimal for an ordinary edit, a whole replacement (said so) when
// the line diff would cost too much.
import { describe, expect, it } from "vitest";
import { fileDiff } from "../../src/cli/file-diff.js";

const lines = (seed: string, count: number) =>
  `${Array.from({ length: count }, (_, i) => `line ${seed} ${i}`).join("\n")}\n`;

describe("fileDiff", () => {
  it("shows an edit of one line as one hunk with its context", async () => {
    const before = lines("same", 200);
    const after = before.replace("line same 100\n", "line edited 100\n");
    const view = await fileDiff({ path: "src/a.txt", before, after }, { color: false });
    expect(view.lines.join("\n")).not.toContain("whole replacement");
    expect(view.lines).toContain("  -line same 100");
    expect(view.lines).toContain("  +line edited 100");
    expect(view).toMatchObject({ added: 1, removed: 1 });
  });

  it("shows a rewrite of 3,000 unlike lines as a whole replacement, cut after a screenful", async () => {
    const view = await fileDiff(
      { path: "src/big.txt", before: lines("old", 3000), after: lines("new", 3000) },
      { color: false, maxLines: 20 },
    );
    expect(view.lines[0]).toContain("too many changes for a line-by-line diff: shown as a whole replacement");
    expect(view).toMatchObject({ added: 3000, removed: 3000 });
    expect(view.lines.length).toBeLessThan(30);
  });
});
