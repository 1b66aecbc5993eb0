// `reson acp`'s first exchange, answered before the rest of reson loads (src/acp/handshake.ts),
// seen as raw protocol lines: what comes before initialize is refused as the SDK would refuse
// it, nothing the editor sends right after initialize is lost while the rest loads, and
// initialize may come again later.
import { type ChildProcess, spawn } from "node:child_process";
import { afterEach, describe, expect, it } from "vitest";
import { acpEnv } from "../support/acp-client.js";
import { CLI } from "../support/cli.js";
import { useCliFixture } from "../support/cli-fixture.js";

interface RawAcp {
  child: ChildProcess;
  send(message: object | string): void;
  /** The answer to request `id`, waited for (bounded). */
  answer(id: number): Promise<Record<string, unknown>>;
  lines: string[];
  exited: Promise<number | null>;
}

function rawAcp(env: NodeJS.ProcessEnv, cwd: string): RawAcp {
  const child = spawn(process.execPath, [CLI, "acp"], { env, cwd, stdio: ["pipe", "pipe", "pipe"] });
  const lines: string[] = [];
  let partial = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
    const split = (partial + chunk).split("\n");
    partial = split.pop() ?? "";
    lines.push(...split.filter(Boolean));
  });
  child.stderr.resume();
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  const find = (id: number) => lines.map((line) => JSON.parse(line)).find((message) => message.id === id);
  return {
    child,
    lines,
    exited,
    send: (message) =>
      child.stdin.write(typeof message === "string" ? message : `${JSON.stringify(message)}\n`),
    async answer(id) {
      for (let i = 0; i < 600 && !find(id); i++) await new Promise((r) => setTimeout(r, 25));
      const found = find(id);
      if (!found) throw new Error(`no answer to ${id}: ${lines.join("\n")}`);
      return found;
    },
  };
}

const initialize = (id: number, params: object = { protocolVersion: 1, clientCapabilities: {} }) => ({
  jsonrpc: "2.0",
  id,
  method: "initialize",
  params,
});

describe("reson acp: the first exchange", () => {
  const f = useCliFixture();
  const started: RawAcp[] = [];
  afterEach(async () => {
    for (const acp of started.splice(0)) {
      acp.child.stdin?.end();
      await acp.exited;
    }
  });
  const begin = () => {
    const acp = rawAcp(acpEnv(f), f.ws.path);
    started.push(acp);
    return acp;
  };

  it("requests before initialize are refused, bad initialize params are invalid params, and the process keeps serving", async () => {
    const acp = begin();
    acp.send({ jsonrpc: "2.0", id: 1, method: "session/list", params: {} });
    acp.send("{not json\n");
    acp.send(initialize(2, { protocolVersion: "one" }));
    acp.send(initialize(3));
    expect(await acp.answer(1)).toMatchObject({ error: { code: -32600 } });
    expect(await acp.answer(2)).toMatchObject({ error: { code: -32602 } });
    expect(acp.lines.some((line) => JSON.parse(line).error?.code === -32700)).toBe(true);
    expect(await acp.answer(3)).toMatchObject({
      result: { protocolVersion: 1, agentInfo: { name: "reson" } },
    });
    acp.send({ jsonrpc: "2.0", id: 4, method: "session/list", params: {} });
    expect(await acp.answer(4)).toMatchObject({ result: { sessions: [] } });
  });

  it("what the editor writes with initialize in one go is served once the rest has loaded; initialize may come again", async () => {
    const acp = begin();
    acp.send(
      `${JSON.stringify(initialize(1))}\n${JSON.stringify({
        jsonrpc: "2.0",
        id: 2,
        method: "session/new",
        params: { cwd: f.ws.path, mcpServers: [] },
      })}\n`,
    );
    const first = await acp.answer(1);
    const created = await acp.answer(2);
    expect(created).toMatchObject({ result: { sessionId: expect.any(String) } });
    acp.send(initialize(3));
    expect((await acp.answer(3)).result).toEqual(first.result);
    acp.send(initialize(4, { protocolVersion: -1 }));
    expect(await acp.answer(4)).toMatchObject({ error: { code: -32602 } });
  });

  it("a line of over 1 MiB before initialize is refused and dropped; the initialize after it is answered", async () => {
    const acp = begin();
    acp.send(`{"jsonrpc":"2.0","id":1,"method":"x","params":"${"a".repeat(1536 * 1024)}"}\n`);
    acp.send(initialize(2));
    expect(await acp.answer(2)).toMatchObject({ result: { protocolVersion: 1 } });
    expect(acp.lines.map((line) => JSON.parse(line).error?.code)).toContain(-32600);
  });

  it("an editor that closes before initialize ends reson quietly", async () => {
    const acp = begin();
    acp.child.stdin?.end();
    expect(await acp.exited).toBe(0);
    expect(acp.lines).toEqual([]);
  });
});
