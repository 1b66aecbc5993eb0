// README's `reson serve` curl sequence, run as written (bash and curl) against a fresh `reson
// serve` in a fresh home folder: only the port and the ids the API hands out are filled in.
// Every command must succeed, the run must answer, and the session must say which model it
// used.
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { cleanEnv, runCli, runWith, type TempDir, tempDir } from "../support/cli.js";
import {
  type FakeModelServer,
  type RecordedRequest,
  startFakeModelServer,
} from "../support/fake-model-server.js";
import { killAllReson, startReson } from "../support/service-process.js";

const README = resolve(import.meta.dirname, "../../README.md");

/** The shell block of README's Service section that starts by reading the token. */
function curlSequence(): string[] {
  const blocks = readFileSync(README, "utf8")
    .split("```sh\n")
    .slice(1)
    .map((block) => block.split("\n```")[0]!);
  const block = blocks.find((b) => b.startsWith("TOKEN=$(cat ~/.reson/serve-token)"));
  if (!block) throw new Error("README has no shell block starting with TOKEN=$(cat ~/.reson/serve-token)");
  return block.split("\n");
}

/** The model: answers the newest task. */
function respond(request: RecordedRequest) {
  const messages = (request.body as { messages?: Array<{ role: string; content: unknown }> }).messages ?? [];
  const task = JSON.stringify(messages.findLast((m) => m.role === "user")?.content ?? "");
  return { text: task.includes("three names") ? "Miso, Pixel, Biscuit." : "Io, Bo." };
}

describe("README's reson serve sequence", () => {
  let home: TempDir;
  let model: FakeModelServer;

  beforeEach(async () => {
    home = tempDir();
    model = await startFakeModelServer({ respond });
  });
  afterEach(async () => {
    await killAllReson();
    await model.close();
    home.remove();
  });

  it("works as written against a fresh reson serve", async () => {
    // A fresh serve for a user whose model is configured in the environment: HOME is the
    // temp folder, so ~/.reson is where serve keeps its token and its workspaces.
    const env = cleanEnv({
      HOME: home.path,
      RESON_PROVIDER: "openai-compatible",
      RESON_BASE_URL: model.openaiBaseUrl,
      RESON_MODEL: "fake-model",
      RESON_MEMORY: "false",
    });
    const serve = startReson(["serve", "--port", "0", "--log-format", "json"], { env, cwd: home.path });
    const [, port] = await serve.waitFor(/"url":"http:\/\/127\.0\.0\.1:(\d+)"/);

    const lines = curlSequence();
    const prelude = lines.slice(0, 2).join("\n");
    const commands = lines.slice(2).filter((line) => line.trim() !== "" && !line.startsWith("#"));
    expect(prelude).toContain("api() {");
    expect(commands.length).toBeGreaterThanOrEqual(10);
    const ids = { run: "", session: "" };
    const outputs: Array<{ command: string; stdout: string }> = [];
    for (const line of commands) {
      const command = line
        .replaceAll("localhost:7878", `localhost:${port}`)
        .replaceAll("runs/01K…", `runs/${ids.run}`)
        .replaceAll("sessions/01K…", `sessions/${ids.session}`);
      expect(command, "every id the sequence uses was handed out before").not.toContain("01K…");
      const result = await runWith("bash", ["-c", `${prelude}\n${command}`], {
        env,
        timeoutMs: 30_000,
      }).catch((error: unknown) => {
        throw new Error(`${String(error)}\nserve's log:\n${serve.stderr()}`);
      });
      expect(result.code, `${command}\n${result.stderr}`).toBe(0);
      expect(result.stdout, command).not.toBe("");
      if (!command.includes("-N ")) {
        const body = JSON.parse(result.stdout) as Record<string, unknown>;
        // An error answer is { error: { code, message, hint } } (a run's own error field is null).
        expect(
          (body.error as { code?: string } | null)?.code,
          `${command}\n${result.stdout}`,
        ).toBeUndefined();
        if (/-X POST localhost:\d+\/runs -d/.test(command)) {
          ids.run = String(body.id);
          ids.session = String(body.sessionId);
        }
      }
      outputs.push({ command, stdout: result.stdout });
    }

    const output = (pattern: RegExp) => outputs.find((o) => pattern.test(o.command))!.stdout;
    const workspace = JSON.parse(output(/-X POST \S+\/workspaces/)) as { id: string; path: string };
    expect(workspace.id).toMatch(/^ws_/);
    expect(workspace.path).toBe(join(home.path, ".reson", "workspaces", "project"));
    // The live stream ran to the run's end, with the answer.
    expect(output(/-N /)).toContain("event: run_end");
    expect(output(/-N /)).toContain("Miso, Pixel, Biscuit.");
    expect(JSON.parse(output(/^api localhost:\d+\/runs\/\w+\s/))).toMatchObject({
      id: ids.run,
      sessionId: ids.session,
    });
    expect(readFileSync(join(workspace.path, "AGENTS.md"), "utf8")).toContain("notebook");
    const { sessions } = JSON.parse(output(/\/sessions\s/)) as {
      sessions: Array<{ id: string; provider: string; model: string }>;
    };
    expect(sessions.find((s) => s.id === ids.session)).toMatchObject({
      provider: "openai-compatible",
      model: "fake-model",
    });
    // The terminal sees the same session, with the model its runs used.
    const listed = await runCli(["sessions", "--json"], { env, cwd: home.path });
    expect(listed.code, listed.stderr).toBe(0);
    const session = listed.stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { id: string; settings: { provider: string; model: string } })
      .find((s) => s.id === ids.session);
    expect(session?.settings).toMatchObject({ provider: "openai-compatible", model: "fake-model" });
  }, 90_000);
});
