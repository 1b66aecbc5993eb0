// The interactive terminal on a real pseudo-terminal (tmux): readline in terminal mode, the
// permission prompt answered by one key without Enter, long calls shown whole and wrapped to
// the terminal, Ctrl-C as a key (not a signal), and /rewind's picker. Where no sandbox works, a
// command's prompt offers only y/n/m/e; the tests that need more pass --sandbox off, so they
// run either way.
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { TEST_SERVER } from "../mcp/servers.js";
import { CLI, type TempDir, tempDir } from "../support/cli.js";
import { type FakeModelServer, startFakeModelServer } from "../support/fake-model-server.js";
import { lacks, skipWithout } from "../support/requirements.js";

const tmux = (...args: string[]) => execFileSync("tmux", args, { encoding: "utf8" });

const ALL_ANSWERS = "allow? [y/s/p/u/n/m/e]";
const ONCE_ONLY = "allow? [y/n/m/e]";
// Without a working sandbox every command is asked each time: s, p and u are not offered.
const commandAnswers = (await lacks("sandbox")) ? ONCE_ONLY : ALL_ANSWERS;

describe.skipIf(await skipWithout("tmux", "the interactive terminal on a pty"))(
  "the interactive terminal on a pty",
  () => {
    let server: FakeModelServer;
    let ws: TempDir;
    let home: TempDir;
    const name = `reson-test-${process.pid}`;

    beforeEach(async () => {
      server = await startFakeModelServer();
      ws = tempDir();
      home = tempDir();
    });
    afterEach(async () => {
      try {
        tmux("kill-session", "-t", name);
      } catch {}
      await server.close();
      ws.remove();
      home.remove();
    });

    /** The screen and its scrollback; lines tmux itself wrapped are joined again. */
    const screen = () => tmux("capture-pane", "-p", "-J", "-t", name, "-S", "-200");
    const waitFor = async (text: string | RegExp, after = 0): Promise<string> => {
      for (let i = 0; i < 300; i++) {
        const shown = screen();
        const rest = shown.split("\n").slice(after).join("\n");
        if (typeof text === "string" ? rest.includes(text) : text.test(rest)) return shown;
        await new Promise((r) => setTimeout(r, 50));
      }
      throw new Error(`timed out waiting for ${String(text)}; screen:\n${screen()}`);
    };
    const lines = (shown: string) => shown.trimEnd().split("\n").length;
    const count = (shown: string, text: string) => shown.split(text).length - 1;
    const keys = (...sent: string[]) => tmux("send-keys", "-t", name, ...sent);
    /** `reson` against the fake model server in a terminal `columns` wide, colours allowed. */
    const startReson = (options: { columns?: number; args?: string[]; env?: string[] } = {}) => {
      const command = [
        `RESON_HOME=${home.path}`,
        "OLLAMA_HOST=127.0.0.1:9",
        "TERM=xterm-256color",
        ...(options.env ?? []),
        process.execPath,
        CLI,
        "--provider openai-compatible",
        `--base-url ${server.openaiBaseUrl}`,
        "--model fake-model",
        ...(options.args ?? []),
      ].join(" ");
      tmux(
        "new-session",
        "-d",
        "-s",
        name,
        "-x",
        String(options.columns ?? 160),
        "-y",
        "50",
        "-c",
        ws.path,
        `env -u NO_COLOR ${command}`,
        // The screen stays readable after reson exits (the last wait may come after the exit).
        ";",
        "set-option",
        "-w",
        "-t",
        name,
        "remain-on-exit",
        "on",
      );
    };
    const command = (text: string) => ({
      toolCalls: [{ name: "execute_command", arguments: { command: text } }],
    });

    it("a one-key answer runs the command, Ctrl-C cancels a reply, /exit leaves", async () => {
      const long = Array.from({ length: 100 }, (_, i) => `word${i}`).join(" ");
      server.enqueue(
        { text: "Running it.", ...command("touch t.txt") },
        { text: "Done." },
        { text: long, chunkDelayMs: 100 },
        { text: "After the interrupt." },
      );
      startReson();
      await waitFor("reson>");
      keys("touch a file", "Enter");
      let shown = await waitFor(commandAnswers);
      // One key, no Enter: the answer is taken as it is pressed.
      keys("y");
      shown = await waitFor(/Done\.[\s\S]*this session/);
      expect(existsSync(join(ws.path, "t.txt"))).toBe(true);
      expect(shown).toContain(`${commandAnswers} y\n`);
      expect(shown).toMatch(/✓ execute_command command="touch t.txt"/);

      keys("talk slowly", "Enter");
      shown = await waitFor("word2", lines(shown) - 1);
      keys("C-c");
      shown = await waitFor(/interrupted[\s\S]*reson>/, lines(shown) - 1);
      keys("again", "Enter");
      shown = await waitFor("After the interrupt.", lines(shown) - 1);
      expect(shown).not.toContain("word99");
      keys("/exit", "Enter");
      await waitFor("reson --continue");
    });

    it("shows a file change as a coloured diff on a terminal", async () => {
      server.enqueue(
        { toolCalls: [{ name: "write_file", arguments: { path: "hello.txt", content: "hello\nworld\n" } }] },
        { text: "Written." },
      );
      startReson();
      await waitFor("reson>");
      keys("write a file", "Enter");
      await waitFor(ALL_ANSWERS);
      // With its escape sequences (as tmux re-encodes them): added lines green, the hunk header cyan.
      const coloured = tmux("capture-pane", "-p", "-e", "-t", name, "-S", "-200");
      const esc = String.fromCharCode(27);
      expect(coloured).toContain(`${esc}[32m  +hello`);
      expect(coloured).toMatch(new RegExp(`${esc}\\[36m(${esc}\\[\\d+m)*  @@ -0,0 \\+1,2 @@`));
      keys("y");
      await waitFor("Written.");
      expect(existsSync(join(ws.path, "hello.txt"))).toBe(true);
      keys("/exit", "Enter");
      await waitFor("reson --continue");
    });

    it("shows a long compound command whole, wrapped, with every part that asks; p saves one rule per part", async () => {
      const files = ["alpha-first-file-with-a-long-name", "beta-second-file", "gamma-third-file-also-long"];
      const compound = files.map((file) => `touch ${file}.txt`).join(" && ");
      server.enqueue(command(`${compound} && git status`), { text: "Touched." });
      startReson({ columns: 80, args: ["--sandbox", "off"] });
      await waitFor("reson>");
      keys("touch three files", "Enter");
      const shown = await waitFor(ALL_ANSWERS);
      const prompt = shown.slice(shown.lastIndexOf("? execute_command"));
      // Wrapped by reson, not cut: no line is wider than the terminal, continuations indented.
      for (const line of prompt.split("\n")) expect(line.length).toBeLessThan(80);
      expect(prompt).not.toContain("…");
      const shownCommand = prompt.slice(prompt.indexOf("command:"), prompt.indexOf("asks about"));
      expect(shownCommand.replace(/\n +/g, " ").trim()).toBe(`command: ${compound} && git status`);
      expect(prompt).toContain("  asks about 3 parts:\n");
      for (const file of files) expect(prompt).toContain(`    - touch ${file}.txt: default mode asks`);
      // What every answer would save, before it is saved: one narrow rule a part.
      const rules = files.map((file) => `execute_command(touch ${file}.txt)`);
      expect(prompt).toContain(
        "  [s] for this session  [p] always in this project  [u] always for me; adds:\n" +
          rules.map((rule) => `      ${rule}\n`).join(""),
      );
      keys("p");
      await waitFor("Touched.");
      for (const file of files) expect(existsSync(join(ws.path, `${file}.txt`))).toBe(true);
      const settings = JSON.parse(readFileSync(join(ws.path, ".reson/settings.local.json"), "utf8"));
      expect(settings.permissions.allow).toEqual(rules);
      keys("/exit", "Enter");
      await waitFor("reson --continue");
    });

    it("s on a command that writes by redirection covers the write: the same command is not asked again", async () => {
      server.enqueue(
        command("echo x >> log.txt"),
        command("echo x >> log.txt"),
        command("echo y >> other.txt"),
        { text: "Logged." },
      );
      startReson({ args: ["--sandbox", "off"] });
      await waitFor("reson>");
      keys("log twice", "Enter");
      let shown = await waitFor(ALL_ANSWERS);
      expect(shown).toContain("[s] allow for this session: Edit(./log.txt)");
      keys("s");
      // The second `echo x >> log.txt` runs unasked; the write to another file is asked.
      shown = await waitFor(/command: echo y >> other\.txt[\s\S]*allow\? \[/);
      expect(count(shown, "allow? [")).toBe(2);
      keys("n");
      await waitFor("Logged.");
      expect(readFileSync(join(ws.path, "log.txt"), "utf8")).toBe("x\nx\n");
      expect(existsSync(join(ws.path, "other.txt"))).toBe(false);
      keys("/exit", "Enter");
      await waitFor("reson --continue");
    });

    it("shows an MCP call's arguments whole and e edits them before it runs", async () => {
      writeFileSync(
        join(ws.path, ".mcp.json"),
        JSON.stringify({ mcpServers: { test: { command: process.execPath, args: [TEST_SERVER] } } }),
      );
      const text = Array.from({ length: 30 }, (_, i) => `piece-${i}`).join(" ");
      server.enqueue({ toolCalls: [{ name: "mcp__test__echo", arguments: { text } }] }, { text: "Echoed." });
      startReson({ columns: 80, args: ["--allow-mcp", "test"] });
      await waitFor("reson>");
      keys("echo it", "Enter");
      const shown = await waitFor(ALL_ANSWERS);
      const prompt = shown.slice(shown.lastIndexOf("? mcp__test__echo"));
      // The argument, up to the line that says why it asks, is the whole text.
      const argument = prompt.slice(prompt.indexOf("text:"), prompt.search(/\n {2}\S/));
      expect(argument.replace(/\n +/g, " ").trim()).toBe(`text: ${text}`);
      expect(prompt).toContain("[e] edit");
      keys("e");
      await waitFor("new text (empty keeps it): ");
      keys("edited by the user", "Enter");
      await waitFor("Echoed.");
      // The server echoed the edited text: the call ran with it.
      const last = server.requests.at(-1)!.body as { messages: { role: string; content: string }[] };
      const messages = last.messages;
      expect(messages.at(-1)?.role).toBe("tool");
      expect(messages.at(-1)?.content).toMatch(/^edited by the user\n/);
      keys("/exit", "Enter");
      await waitFor("reson --continue");
    });

    it("Ctrl-C at a permission prompt denies the call and cancels the task", async () => {
      server.enqueue(command("touch never.txt"), { text: "Should not be asked for." });
      startReson({ args: ["--sandbox", "off"] });
      await waitFor("reson>");
      keys("touch it", "Enter");
      const shown = await waitFor(ALL_ANSWERS);
      keys("C-c");
      await waitFor(/cancelling[\s\S]*reson>/, lines(shown) - 1);
      expect(existsSync(join(ws.path, "never.txt"))).toBe(false);
      keys("/exit", "Enter");
      await waitFor("reson --continue");
    });

    it("without a working sandbox, a command is asked every time with y/n/m/e only", async () => {
      server.enqueue(command("touch t.txt"), { text: "Done." });
      startReson({ env: ["RESON_BWRAP=/nonexistent/bwrap"] });
      await waitFor("reson>");
      keys("touch a file", "Enter");
      const shown = await waitFor(ONCE_ONLY);
      expect(shown).toContain("OUTSIDE any sandbox");
      expect(shown).toContain("(asked every time: no answer covers later calls)");
      keys("s");
      await waitFor("answer y, n, m or e");
      keys("y");
      await waitFor("Done.");
      expect(existsSync(join(ws.path, "t.txt"))).toBe(true);
      keys("/exit", "Enter");
      await waitFor("reson --continue");
    });

    it("/rewind picks a recent step and puts the file back; /rewind undo puts the change back again", async () => {
      writeFileSync(join(ws.path, "notes.txt"), "my own notes\n");
      server.enqueue(
        { toolCalls: [{ name: "write_file", arguments: { path: "notes.txt", content: "overwritten\n" } }] },
        { text: "Replaced." },
      );
      startReson();
      await waitFor("reson>");
      tmux("send-keys", "-t", name, "replace the notes", "Enter");
      let shown = await waitFor("allow? [y/s/p/u/n/m/e]");
      tmux("send-keys", "-t", name, "y", "Enter");
      shown = await waitFor("Replaced.");
      expect(readFileSync(join(ws.path, "notes.txt"), "utf8")).toBe("overwritten\n");

      tmux("send-keys", "-t", name, "/rewind", "Enter");
      shown = await waitFor("which? (a number; empty to cancel)", lines(shown) - 1);
      expect(shown).toMatch(/1\) step 1 of run \w+… \(write_file notes\.txt\): 1 file/);
      expect(shown).toMatch(/2\) run \w+… as a whole \("replace the notes"\): 1 file/);
      tmux("send-keys", "-t", name, "1", "Enter");
      shown = await waitFor(
        "Rewind files and conversation [y], files only [f], or nothing [N]?",
        lines(shown) - 1,
      );
      expect(shown).toContain("restore notes.txt");
      tmux("send-keys", "-t", name, "y", "Enter");
      shown = await waitFor("/rewind undo puts it back", lines(shown) - 1);
      expect(readFileSync(join(ws.path, "notes.txt"), "utf8")).toBe("my own notes\n");

      tmux("send-keys", "-t", name, "/rewind undo", "Enter");
      shown = await waitFor("Rewind? [y/N]", lines(shown) - 1);
      tmux("send-keys", "-t", name, "y", "Enter");
      await waitFor("/rewind undo puts it back", lines(shown) - 1);
      expect(readFileSync(join(ws.path, "notes.txt"), "utf8")).toBe("overwritten\n");
      tmux("send-keys", "-t", name, "/exit", "Enter");
      await waitFor("reson --continue");
    });
  },
);
