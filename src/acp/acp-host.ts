// `reson acp`: an Agent Client Protocol agent on a pair of streams (stdin and stdout). The
// editor's requests become reson sessions and runs (acp-session.ts), all in the one store, so a
// session begun here continues in the terminal and back. Every handler's failure is a JSON-RPC
// error with reson's code and hint; nothing the editor sends can stop the process.
import { realpathSync } from "node:fs";
import { isAbsolute } from "node:path";
import {
  type AgentContext,
  agent,
  type ClientCapabilities,
  type ListSessionsResponse,
  type McpServer,
  methods,
  ndJsonStream,
  RequestError,
  type SessionConfigOption,
  type SessionModeState,
} from "@agentclientprotocol/sdk";
import { conversationTurns, openDefaultStore } from "../agent/index.js";
import { resonHome } from "../config/index.js";
import { hostStoppingError } from "../core/abort.js";
import { ResonError } from "../core/errors.js";
import { ulid } from "../core/ids.js";
import type { RunSpec } from "../runner/index.js";
import { projectKey, type Store } from "../store/index.js";
import { AcpSession } from "./acp-session.js";
import { initializeResponse } from "./capabilities.js";
import { initializeParams } from "./handshake.js";
import { limitMessages, MAX_MESSAGE_BYTES } from "./message-limit.js";
import { rpcError } from "./rpc-error.js";
import { modeState, requireMode } from "./session-modes.js";
import { placeOfRun, replayUpdates } from "./session-replay.js";

export interface AcpOptions {
  /** What every session's runs start with (the command's flags; config and environment fill the rest). */
  spec: Omit<RunSpec, "workspace">;
  /** Project MCP servers that may start without approval (--allow-mcp). */
  allowMcp: readonly string[];
  /** reson's version, for agentInfo. */
  version: string;
  /** initialize says prompts may carry images (advertisedImages), as the handshake did. */
  images: boolean;
  /** initialize was answered before the connection (handshake.ts): what the client said it offers. */
  clientCapabilities: ClientCapabilities | undefined;
  input: ReadableStream<Uint8Array>;
  output: WritableStream<Uint8Array>;
  /** A line for the log (stderr): never protocol. */
  log: (line: string) => void;
  /** Ends the connection (SIGTERM, SIGINT). */
  signal?: AbortSignal;
}

/** Sessions served at most: list() answers the newest this many. */
const LISTED_SESSIONS = 100;

class AcpHost {
  readonly #sessions = new Map<string, AcpSession>();
  readonly #opening = new Map<string, Promise<AcpSession>>();
  #store: Promise<Store> | undefined;
  #capabilities: ClientCapabilities | undefined;
  readonly #stop = new AbortController();

  constructor(private readonly options: AcpOptions) {
    this.#capabilities = options.clientCapabilities;
  }

  initialize(capabilities: ClientCapabilities | undefined) {
    this.#capabilities = capabilities;
    return initializeResponse(this.options.version, this.options.images);
  }

  store(): Promise<Store> {
    this.#store ??= openDefaultStore(resonHome());
    return this.#store;
  }

  /** A session this process serves; unknown ones are ACP's "resource not found". */
  session(id: string): AcpSession {
    const session = this.#sessions.get(id);
    if (!session) throw RequestError.sessionNotFound(id);
    return session;
  }

  /** A cancel for a session that is not open here has nothing to stop. */
  cancel(id: string): void {
    this.#sessions.get(id)?.cancel();
  }

  async newSession(cwd: string, mcpServers: readonly McpServer[], client: AgentContext) {
    const session = await this.#open(ulid(), checkedCwd(cwd), mcpServers, client, true);
    const answer = {
      sessionId: session.id,
      modes: modeState(session.mode),
      configOptions: await session.configOptions(),
    };
    afterAnswer(session);
    return answer;
  }

  /**
   * An existing session, by id, opened here (or the one already open): its folder must be the
   * one it was begun in. `replay`: its committed turns are sent first (session/load).
   */
  async openStored(
    id: string,
    cwd: string,
    mcpServers: readonly McpServer[],
    client: AgentContext,
    replay: boolean,
  ): Promise<{ modes: SessionModeState; configOptions: SessionConfigOption[] }> {
    const store = await this.store();
    const stored = await store.sessions.get(id);
    // One session per id: a second load while the first is still opening it gets the same one.
    const open = this.#sessions.get(id) ?? (await this.#opening.get(id)?.catch(() => undefined));
    if (!stored && !open) throw RequestError.sessionNotFound(id);
    const root = checkedCwd(cwd);
    if (stored && stored.workspace !== root)
      throw new ResonError("usage_error", `Session ${id} belongs to ${stored.workspace}, not ${root}.`, {
        hint: "Open it from that folder, or start a new session here.",
      });
    const session = open ?? (await this.#open(id, root, mcpServers, client));
    if (replay && stored) {
      const { conversation } = await conversationTurns(store, id);
      const places = new Map<string, string | undefined>();
      for (const traceId of new Set(conversation.map((turn) => turn.traceId)))
        if (traceId) places.set(traceId, placeOfRun(await sandboxOfRun(store, traceId)));
      const placeOf = (traceId: string | null) => (traceId ? places.get(traceId) : undefined);
      for (const update of replayUpdates(conversation, root, placeOf)) session.updates.send(update);
      await session.updates.flush();
    }
    const answer = { modes: modeState(session.mode), configOptions: await session.configOptions() };
    if (!open) afterAnswer(session);
    return answer;
  }

  async list(cwd: string | null | undefined): Promise<ListSessionsResponse> {
    const store = await this.store();
    const filter = cwd ? { projectKey: projectKey(checkedCwd(cwd)) } : {};
    const sessions = await store.sessions.list({ limit: LISTED_SESSIONS, ...filter });
    return {
      sessions: sessions.map((session) => ({
        sessionId: session.id,
        cwd: session.workspace,
        title: session.title,
        updatedAt: new Date(session.updatedAt).toISOString(),
      })),
    };
  }

  async closeSession(id: string): Promise<void> {
    const session = this.session(id);
    this.#sessions.delete(id);
    await session.close();
  }

  /** The connection ended: runs in flight stop as a crash would leave them, to resume later. */
  async close(): Promise<void> {
    this.#stop.abort(hostStoppingError("reson acp"));
    const opening = [...this.#opening.values()].map((p) => p.catch(() => undefined));
    const sessions = [...this.#sessions.values(), ...(await Promise.all(opening))];
    await Promise.all(
      sessions.map((session) => session?.close(hostStoppingError("reson acp")).catch(() => {})),
    );
    await (await this.#store?.catch(() => undefined))?.close({ processExiting: true }).catch(() => {});
  }

  async #open(
    id: string,
    cwd: string,
    mcpServers: readonly McpServer[],
    client: AgentContext,
    unannounced = false,
  ): Promise<AcpSession> {
    const opening = (async () =>
      AcpSession.open({
        id,
        cwd,
        unannounced,
        spec: this.options.spec,
        allowMcp: this.options.allowMcp,
        mcpServers,
        store: await this.store(),
        client,
        capabilities: this.#capabilities,
        signal: this.#stop.signal,
        log: this.options.log,
      }))();
    this.#opening.set(id, opening);
    try {
      const session = await opening;
      this.#sessions.set(id, session);
      return session;
    } finally {
      this.#opening.delete(id);
    }
  }
}

/**
 * A session opened: what its first prompt would otherwise do before its first update (open the
 * model's connection, load recall's word table) is done now, as part of session/new or /load;
 * what the session held and its commands follow the answer that names the session (the SDK
 * writes it in the microtasks after the handler returns), so the editor knows the session they
 * are for.
 */
function afterAnswer(session: AcpSession): void {
  session.prepare();
  setImmediate(() => session.announce());
}

/** The editor's cwd as a workspace root: absolute (ACP's rule) and existing, by its real path. */
function checkedCwd(cwd: string): string {
  if (!isAbsolute(cwd))
    throw new ResonError("usage_error", `cwd must be an absolute path, got ${JSON.stringify(cwd)}.`, {
      hint: "ACP paths are absolute: send the project folder's full path.",
    });
  try {
    return realpathSync(cwd);
  } catch {
    throw new ResonError("workspace_invalid", `The folder ${cwd} does not exist.`, {
      hint: "Open a project folder that exists on this machine.",
    });
  }
}

function initializeParser(params: unknown) {
  const checked = initializeParams(params);
  if (!checked.ok) throw RequestError.invalidParams(undefined, checked.message);
  return checked.value;
}

/** A handler whose failures are JSON-RPC errors carrying reson's code and hint. */
function answered<C, R>(handler: (context: C) => R | Promise<R>): (context: C) => Promise<R> {
  return async (context) => {
    try {
      return await handler(context);
    } catch (error) {
      throw rpcError(error);
    }
  };
}

export async function serveAcp(options: AcpOptions): Promise<void> {
  const host = new AcpHost(options);
  const app = agent({ name: "reson" })
    // Answered first by the handshake; an editor may send it again. With a parser of reson's
    // own, so the SDK's gate (requests before initialize refused) stays off: the handshake was it.
    .onRequest(
      methods.agent.initialize,
      initializeParser,
      answered(({ params }) => host.initialize(params.clientCapabilities)),
    )
    .onRequest(
      methods.agent.authenticate,
      answered(() => {
        throw new ResonError("usage_error", "reson needs no login: keys come from its environment.", {
          hint: "Set the provider's key variable (e.g. ANTHROPIC_API_KEY) in the editor's agent settings (env).",
        });
      }),
    )
    .onRequest(
      methods.agent.session.new,
      answered(({ params, client }) => host.newSession(params.cwd, params.mcpServers, client)),
    )
    .onRequest(
      methods.agent.session.load,
      answered(({ params, client }) =>
        host.openStored(params.sessionId, params.cwd, params.mcpServers, client, true),
      ),
    )
    .onRequest(
      methods.agent.session.resume,
      answered(({ params, client }) =>
        host.openStored(params.sessionId, params.cwd, params.mcpServers ?? [], client, false),
      ),
    )
    .onRequest(
      methods.agent.session.list,
      answered(({ params }) => host.list(params.cwd)),
    )
    .onRequest(
      methods.agent.session.close,
      answered(async ({ params }) => {
        await host.closeSession(params.sessionId);
        return {};
      }),
    )
    .onRequest(
      methods.agent.session.setMode,
      answered(({ params }) => {
        host.session(params.sessionId).setMode(requireMode(params.modeId));
        return {};
      }),
    )
    .onRequest(
      methods.agent.session.setConfigOption,
      answered(async ({ params }) => ({
        configOptions: await host.session(params.sessionId).setConfigOption(params.configId, params.value),
      })),
    )
    .onRequest(
      methods.agent.session.prompt,
      answered(async ({ params }) => ({
        stopReason: await host.session(params.sessionId).prompt(params.prompt),
      })),
    )
    .onNotification(methods.agent.session.cancel, ({ params }) => host.cancel(params.sessionId));
  // One writer for the SDK's lines and the answers to messages over the cap, in turn.
  const writer = options.output.getWriter();
  const output = new WritableStream<Uint8Array>({
    write: (chunk) => writer.write(chunk),
    close: () => writer.close(),
    abort: (reason) => writer.abort(reason),
  });
  const encoder = new TextEncoder();
  const input = limitMessages(
    options.input,
    (line) =>
      writer
        .write(encoder.encode(`${line}\n`))
        .catch((error: unknown) => options.log(`an answer did not reach the editor: ${String(error)}`)),
    options.log,
  );
  const connection = app.connect(
    // The SDK's own cap sits just above ours, so it never meets a line it would fail on.
    ndJsonStream(output, input, { maxMessageBytes: MAX_MESSAGE_BYTES + 1024 }),
  );
  const stop = () => connection.close();
  options.signal?.addEventListener("abort", stop, { once: true });
  try {
    await connection.closed;
  } finally {
    options.signal?.removeEventListener("abort", stop);
    await host.close();
  }
}

/** The sandbox line a run's checkpoint keeps (what contained its commands), if any. */
async function sandboxOfRun(store: Store, traceId: string): Promise<unknown> {
  const checkpoint = await store.checkpoints.get(traceId);
  const state = checkpoint?.state as { sandbox?: unknown } | undefined;
  return state?.sandbox;
}
