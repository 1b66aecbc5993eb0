// README "Editors (ACP)": each editor's configuration block, checked by its shape and by running
// the command it names the way that editor does (the ACP SDK's client over the command's stdio,
// from the user's project folder, with `reson` on PATH), and the acpx block as written in a
// user's shell (acpx from this repository's devDependencies, on the same PATH).
//
// Harness variables: RESON_PROVIDER=openai-compatible, RESON_BASE_URL and RESON_MODEL point at
// the fake model server, beside cleanEnv's (test/support/cli.ts).
import { symlinkSync } from "node:fs";
import { dirname, join } from "node:path";
import { methods } from "@agentclientprotocol/sdk";
import { describe, expect, onTestFinished } from "vitest";
import { agentText, startAcp } from "../support/acp-client.js";
import type { ReadmeBlock } from "./readme-blocks.js";
import { localModel, REPO, type ReadmeUser } from "./readme-user.js";
import { scenario, useModel, useShell, useUser } from "./scenario.js";

/** The command a block names, started as the editor starts it: it answers a prompt in the project. */
async function answersAsAgent(user: ReadmeUser, command: readonly [string, ...string[]]): Promise<void> {
  const acp = startAcp({ env: user.env, command, cwd: user.work });
  onTestFinished(async () => void (await acp.close()));
  const init = await acp.initialize();
  expect(init.agentInfo?.name).toBe("reson");
  const { sessionId } = await acp.connection.agent.request(methods.agent.session.new, {
    cwd: user.work,
    mcpServers: [],
  });
  const answer = await acp.connection.agent.request(methods.agent.session.prompt, {
    sessionId,
    prompt: [{ type: "text", text: "hello" }],
  });
  expect(answer.stopReason).toBe("end_turn");
  expect(agentText(acp.updates)).toBe("Hello from reson.");
}

/** A JSON block without its `//` comment lines (Zed's settings are JSON with comments). */
function jsonOf(block: ReadmeBlock): { agent_servers: Record<string, Record<string, unknown>> } {
  return JSON.parse(
    block.body
      .split("\n")
      .filter((line) => !line.trim().startsWith("//"))
      .join("\n"),
  );
}

async function editorUser(): Promise<ReadmeUser> {
  const model = await useModel({ replies: [{ text: "Hello from reson." }] });
  return useUser(localModel(model));
}

async function serverEntryRuns(block: ReadmeBlock, extra: Record<string, unknown> = {}): Promise<void> {
  const entry = jsonOf(block).agent_servers.reson!;
  expect(entry).toEqual({ command: "reson", args: ["acp"], env: {}, ...extra });
  await answersAsAgent(await editorUser(), [entry.command as string, ...(entry.args as string[])]);
}

/** A Lua or Emacs Lisp block names the command as the strings "reson" and "acp". */
async function namedCommandRuns(block: ReadmeBlock, pattern: RegExp): Promise<void> {
  expect(block.body).toMatch(pattern);
  await answersAsAgent(await editorUser(), ["reson", "acp"]);
}

describe("README: Editors (ACP)", () => {
  scenario("// ~/.config/zed/settings.json", (block) => serverEntryRuns(block, { type: "custom" }));

  scenario('"agent_servers": {', (block) => serverEntryRuns(block));

  scenario('require("codecompanion").setup({', (block) =>
    namedCommandRuns(block, /commands = \{ default = \{ "reson", "acp" \} \}/),
  );

  scenario('require("avante").setup({', (block) =>
    namedCommandRuns(block, /reson = \{ command = "reson", args = \{ "acp" \}/),
  );

  scenario("(defun agent-shell-reson-start ()", (block) =>
    namedCommandRuns(block, /\(acp-make-client :command "reson" :command-params '\("acp"\)\)/),
  );

  scenario("acpx --agent 'reson acp' exec \"what does this project do?\"", async (block) => {
    const model = await useModel({
      replies: [
        { text: "A small project." },
        {
          toolCalls: [{ name: "write_file", arguments: { path: "NOTES.md", content: "The tests pass.\n" } }],
        },
        { text: "Added." },
      ],
    });
    const user = useUser(localModel(model));
    // `npm install -g acpx` put it on PATH: here, the repository's own copy.
    symlinkSync(join(REPO, "node_modules/.bin/acpx"), join(dirname(user.work), "bin", "acpx"));
    const shell = useShell(block, user);
    const asked = await shell.run("acpx --agent 'reson acp' exec", { timeoutMs: 90_000 });
    expect(asked.stdout).toContain("A small project.");
    const edited = await shell.run("acpx --agent 'reson acp' --approve-all exec", { timeoutMs: 90_000 });
    expect(edited.stdout).toContain("Added.");
    expect((await shell.probe("cat NOTES.md")).stdout).toBe("The tests pass.\n");
    shell.end();
  });
});
