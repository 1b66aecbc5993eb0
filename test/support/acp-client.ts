// Drives `reson acp` as a child process with the ACP SDK's own client side over its stdio (the
// SDK's ndJsonStream), the way an editor does: every session/update is kept, permission
// requests are answered by the test, and the editor's file buffers can be offered.
import { type ChildProcess, spawn } from "node:child_process";
import { Readable, Writable } from "node:stream";
import {
  type ClientConnection,
  type CreateElicitationRequest,
  type CreateElicitationResponse,
  client,
  type InitializeResponse,
  methods,
  ndJsonStream,
  PROTOCOL_VERSION,
  type RequestPermissionRequest,
  type RequestPermissionResponse,
  type SessionNotification,
} from "@agentclientprotocol/sdk";
import { CLI, cleanEnv } from "./cli.js";
import type { CliFixture } from "./cli-fixture.js";

/** The environment that points `reson acp` at the fixture's fake model server and home. */
export function acpEnv(f: CliFixture, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return cleanEnv({
    RESON_HOME: f.home.path,
    RESON_PROVIDER: "openai-compatible",
    RESON_BASE_URL: f.server.openaiBaseUrl,
    RESON_MODEL: "fake-model",
    ...extra,
  });
}

/** The updates of one kind, as sent. */
export function updatesOf<K extends SessionNotification["update"]["sessionUpdate"]>(
  updates: readonly SessionNotification[],
  kind: K,
): Extract<SessionNotification["update"], { sessionUpdate: K }>[] {
  return updates
    .map((notification) => notification.update)
    .filter(
      (update): update is Extract<SessionNotification["update"], { sessionUpdate: K }> =>
        update.sessionUpdate === kind,
    );
}

/** The model's text of a turn, as the editor shows it. */
export function agentText(updates: readonly SessionNotification[]): string {
  return updatesOf(updates, "agent_message_chunk")
    .map((update) => (update.content.type === "text" ? update.content.text : ""))
    .join("");
}

/** Waits (bounded) until `ready` holds for the updates received so far. */
export async function untilUpdate(
  acp: AcpProcess,
  ready: (updates: readonly SessionNotification[]) => boolean,
): Promise<void> {
  for (let i = 0; i < 600 && !ready(acp.updates); i++) await new Promise((r) => setTimeout(r, 50));
  if (!ready(acp.updates))
    throw new Error(
      `the expected update did not come:\n${JSON.stringify(acp.updates, null, 1)}\n${acp.stderr()}`,
    );
}

export interface EditorBuffers {
  /** Open buffers by absolute path (their unsaved text). */
  files: Map<string, string>;
  /** Every write the agent asked of the editor, in order. */
  writes: { path: string; content: string }[];
}

export interface AcpProcessOptions {
  env: NodeJS.ProcessEnv;
  args?: string[];
  /** The agent's command as an editor's settings name it (found on env's PATH); default: the built CLI's `acp`. */
  command?: readonly [string, ...string[]];
  cwd?: string;
  /** Answers session/request_permission; default: the first option that allows once. */
  answer?: (request: RequestPermissionRequest) => RequestPermissionResponse;
  /** Offer fs/read_text_file and fs/write_text_file over these buffers. */
  buffers?: EditorBuffers;
  /** Offer form elicitation (the agent's questions), answered so. */
  elicit?: (request: CreateElicitationRequest) => CreateElicitationResponse;
  /**
   * Offer terminal/*: each request reson makes of it is pushed here (method and params) and
   * answered with an error, since reson is not to run commands in the editor's terminal.
   */
  terminalRequests?: { method: string; params: unknown }[];
}

export interface AcpProcess {
  child: ChildProcess;
  connection: ClientConnection;
  /** Every session/update received, in order. */
  updates: SessionNotification[];
  permissionRequests: RequestPermissionRequest[];
  /** Every line reson wrote to stdout, each of which must be a JSON-RPC message. */
  stdoutLines: string[];
  stderr(): string;
  /** Initializes with the capabilities this client has. */
  initialize(): Promise<InitializeResponse>;
  /** Ends the connection and waits for the process to exit; resolves with its exit code. */
  close(): Promise<number | null>;
  exited: Promise<number | null>;
}

export const allowOnce = (request: RequestPermissionRequest): RequestPermissionResponse => {
  const option = request.options.find((o) => o.kind === "allow_once");
  return option
    ? { outcome: { outcome: "selected", optionId: option.optionId } }
    : { outcome: { outcome: "cancelled" } };
};

export function pick(optionId: string) {
  return (): RequestPermissionResponse => ({ outcome: { outcome: "selected", optionId } });
}

export function startAcp(options: AcpProcessOptions): AcpProcess {
  const [file, ...rest] = options.command ?? [process.execPath, CLI, "acp"];
  const child = spawn(file, [...rest, ...(options.args ?? [])], {
    env: options.env ?? cleanEnv(),
    ...(options.cwd ? { cwd: options.cwd } : {}),
    stdio: ["pipe", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
    stderr += chunk;
  });
  const stdoutLines: string[] = [];
  let partial = "";
  const stdout = new Readable({ read() {} });
  child.stdout.on("data", (chunk: Buffer) => {
    const text = partial + chunk.toString("utf8");
    const lines = text.split("\n");
    partial = lines.pop() ?? "";
    stdoutLines.push(...lines.filter((line) => line.length > 0));
    stdout.push(chunk);
  });
  child.stdout.on("end", () => stdout.push(null));
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  const updates: SessionNotification[] = [];
  const permissionRequests: RequestPermissionRequest[] = [];
  const buffers = options.buffers;
  let app = client({ name: "reson-tests" })
    .onNotification(methods.client.session.update, ({ params }) => {
      updates.push(params);
    })
    .onRequest(methods.client.session.requestPermission, ({ params }) => {
      permissionRequests.push(params);
      return (options.answer ?? allowOnce)(params);
    });
  if (buffers) {
    app = app
      .onRequest(methods.client.fs.readTextFile, ({ params }) => {
        const text = buffers.files.get(params.path);
        if (text === undefined) throw new Error(`no buffer for ${params.path}`);
        return { content: text };
      })
      .onRequest(methods.client.fs.writeTextFile, ({ params }) => {
        buffers.writes.push({ path: params.path, content: params.content });
        buffers.files.set(params.path, params.content);
        return {};
      });
  }
  const elicit = options.elicit;
  if (elicit) app = app.onRequest(methods.client.elicitation.create, ({ params }) => elicit(params));
  const terminalRequests = options.terminalRequests;
  if (terminalRequests) {
    const refuse =
      (method: string) =>
      ({ params }: { params: unknown }) => {
        terminalRequests.push({ method, params });
        throw new Error(`the test's editor runs no commands (${method})`);
      };
    app = app
      .onRequest(methods.client.terminal.create, refuse(methods.client.terminal.create))
      .onRequest(methods.client.terminal.output, refuse(methods.client.terminal.output))
      .onRequest(methods.client.terminal.waitForExit, refuse(methods.client.terminal.waitForExit))
      .onRequest(methods.client.terminal.kill, refuse(methods.client.terminal.kill))
      .onRequest(methods.client.terminal.release, refuse(methods.client.terminal.release));
  }
  const connection = app.connect(
    ndJsonStream(
      Writable.toWeb(child.stdin) as WritableStream<Uint8Array>,
      Readable.toWeb(stdout) as ReadableStream<Uint8Array>,
    ),
  );
  return {
    child,
    connection,
    updates,
    permissionRequests,
    stdoutLines,
    stderr: () => stderr,
    exited,
    initialize: () =>
      connection.agent.request(methods.agent.initialize, {
        protocolVersion: PROTOCOL_VERSION,
        clientCapabilities: {
          ...(buffers ? { fs: { readTextFile: true, writeTextFile: true } } : {}),
          ...(elicit ? { elicitation: { form: {} } } : {}),
          ...(terminalRequests ? { terminal: true } : {}),
        },
        clientInfo: { name: "reson-tests", version: "1" },
      }),
    async close() {
      child.stdin.end();
      const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
      const code = await exited;
      clearTimeout(timer);
      connection.close();
      return code;
    },
  };
}
