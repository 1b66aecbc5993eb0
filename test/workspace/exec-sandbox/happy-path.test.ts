// Ordinary work inside the sandbox goes on as outside it: git, node, python, files written in
// the workspace, pipes, exit codes, stdin at end of file. A read-only (plan mode) policy refuses
// workspace writes with the reason.
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCommand } from "../../../src/workspace/command.js";
import { type Fixture, makeFixture, noSandbox, status } from "./fixture.js";

let fx: Fixture;

beforeAll(async () => {
  fx = await makeFixture();
});
afterAll(() => fx?.cleanup());

describe.skipIf(noSandbox)("sandboxed commands that should just work", () => {
  it("run in the workspace, write files the host then sees, and return the exit code", async () => {
    const result = await fx.run(
      "pwd; echo made > made.txt; mkdir -p sub/dir && echo deep > sub/dir/f; exit 7",
    );
    expect(result).toMatchObject({ exitCode: 7, output: `${fx.root}\n`, sandboxed: true, signal: null });
    expect(result.sandboxDenial).toBeUndefined();
    expect(await readFile(join(fx.root, "made.txt"), "utf8")).toBe("made\n");
    expect(await readFile(join(fx.root, "sub/dir/f"), "utf8")).toBe("deep\n");
  });

  it("keep stdout and stderr in order, pipes and subshells working", async () => {
    const result = await fx.run(
      "echo one; echo two >&2; printf 'b\\na\\nc\\n' | sort | head -2; (cd /tmp && pwd)",
    );
    expect(result.output).toBe("one\ntwo\na\nb\n/tmp\n");
  });

  it("read stdin as empty", async () => {
    const result = await fx.run("cat; echo done");
    expect(result.output).toBe("done\n");
  });

  it("use git, node and python", async () => {
    const result = await fx.run(
      [
        "git init -q repo && cd repo",
        "echo x > f && git add f && git -c user.name=t -c user.email=t@t commit -qm first",
        "git log --format=%s",
        `node -e 'console.log(require("node:os").hostname(), 6 * 7)'`,
        `python3 -c 'import tempfile; print(tempfile.gettempdir())'`,
      ].join(" && "),
    );
    expect(result).toMatchObject({ exitCode: 0, output: "first\nsandbox 42\n/tmp\n" });
  });

  it("get TMPDIR=/tmp, TERM=dumb and the caller's HOME path", async () => {
    const result = await fx.run('echo "$TMPDIR $TERM $HOME"');
    expect(result.output).toBe(`/tmp dumb ${process.env.HOME ?? "/root"}\n`);
  });
});

describe.skipIf(noSandbox)("a read-only workspace (plan mode)", () => {
  it("refuses writes in the workspace with the reason, and still reads", async () => {
    await fx.write({ "notes.txt": "keep\n" });
    const policy = fx.policy({ readOnly: true });
    const write = await fx.run("echo changed > notes.txt", { policy });
    expect(write.sandboxDenial).toBe("blocked by sandbox: the workspace is read-only for this command");
    expect(await readFile(join(fx.root, "notes.txt"), "utf8")).toBe("keep\n");
    const read = await fx.run("cat notes.txt", { policy });
    expect(read).toMatchObject({ exitCode: 0, output: "keep\n" });
  });
});

describe("when the sandbox is not enforced", () => {
  it("runs the command plainly and says it was not sandboxed", async () => {
    const none = { ...status, level: "none" as const };
    const result = await runCommand({
      command: "echo plain",
      cwd: fx.root,
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin" },
      shell: "/bin/sh",
      sandbox: { policy: fx.policy(), status: none },
    });
    expect(result).toMatchObject({ output: "plain\n", sandboxed: false, exitCode: 0 });
  });
});
