// The interactive terminal on a real pseudo-terminal (tmux): readline in terminal mode, the
// permission prompt answered by a keypress line, Ctrl-C as a key (not a signal), and /rewind's
// picker.
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { CLI, type TempDir, tempDir } from "../support/cli.js";
import { type FakeModelServer, startFakeModelServer } from "../support/fake-model-server.js";
import { skipWithout } from "../support/requirements.js";

const tmux = (...args: string[]) => execFileSync("tmux", args, { encoding: "utf8" });

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

    const screen = () => tmux("capture-pane", "-p", "-t", name, "-S", "-200");
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
    /** `reson` against the fake model server in a 160x50 terminal, colours allowed. */
    const startReson = () => {
      const command = [
        `RESON_HOME=${home.path}`,
        "OLLAMA_HOST=127.0.0.1:9",
        "TERM=xterm-256color",
        process.execPath,
        CLI,
        "--provider openai-compatible",
        `--base-url ${server.openaiBaseUrl}`,
        "--model fake-model",
      ].join(" ");
      tmux(
        "new-session",
        "-d",
        "-s",
        name,
        "-x",
        "160",
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

    it("a permission answer runs the command, Ctrl-C cancels a reply, /exit leaves", async () => {
      const long = Array.from({ length: 100 }, (_, i) => `word${i}`).join(" ");
      server.enqueue(
        {
          text: "Running it.",
          toolCalls: [{ name: "execute_command", arguments: { command: "touch t.txt" } }],
        },
        { text: "Done." },
        { text: long, chunkDelayMs: 100 },
        { text: "After the interrupt." },
      );
      startReson();
      await waitFor("reson>");
      tmux("send-keys", "-t", name, "touch a file", "Enter");
      let shown = await waitFor("allow? [y/s/p/u/n/m/e]");
      tmux("send-keys", "-t", name, "y", "Enter");
      shown = await waitFor(/Done\.[\s\S]*this session/);
      expect(existsSync(join(ws.path, "t.txt"))).toBe(true);
      expect(shown).toMatch(/✓ execute_command command="touch t.txt"/);

      tmux("send-keys", "-t", name, "talk slowly", "Enter");
      shown = await waitFor("word2", lines(shown) - 1);
      tmux("send-keys", "-t", name, "C-c");
      shown = await waitFor(/interrupted[\s\S]*reson>/, lines(shown) - 1);
      tmux("send-keys", "-t", name, "again", "Enter");
      shown = await waitFor("After the interrupt.", lines(shown) - 1);
      expect(shown).not.toContain("word99");
      tmux("send-keys", "-t", name, "/exit", "Enter");
      await waitFor("reson --continue");
    });

    it("shows a file change as a coloured diff on a terminal", async () => {
      server.enqueue(
        { toolCalls: [{ name: "write_file", arguments: { path: "hello.txt", content: "hello\nworld\n" } }] },
        { text: "Written." },
      );
      startReson();
      await waitFor("reson>");
      tmux("send-keys", "-t", name, "write a file", "Enter");
      await waitFor("allow? [y/s/p/u/n/m/e]");
      // With its escape sequences (as tmux re-encodes them): added lines green, the hunk header cyan.
      const coloured = tmux("capture-pane", "-p", "-e", "-t", name, "-S", "-200");
      const esc = String.fromCharCode(27);
      expect(coloured).toContain(`${esc}[32m  +hello`);
      expect(coloured).toMatch(new RegExp(`${esc}\\[36m(${esc}\\[\\d+m)*  @@ -0,0 \\+1,2 @@`));
      tmux("send-keys", "-t", name, "y", "Enter");
      await waitFor("Written.");
      expect(existsSync(join(ws.path, "hello.txt"))).toBe(true);
      tmux("send-keys", "-t", name, "/exit", "Enter");
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
