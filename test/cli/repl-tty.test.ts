// The interactive terminal on a real pseudo-terminal (tmux): readline in terminal mode, the
// permission prompt answered by a keypress line, and Ctrl-C as a key (not a signal).
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
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
      tmux("new-session", "-d", "-s", name, "-x", "160", "-y", "50", "-c", ws.path, `env ${command}`);
      // The screen stays readable after reson exits (it exits as soon as its last line is out).
      tmux("set-option", "-t", name, "remain-on-exit", "on");
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
  },
);
