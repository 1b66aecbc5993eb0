// session/update notifications of one session, sent in the order they were made: a turn's
// updates all reach the editor before its session/prompt answer (flush), and one the editor
// could not take (the connection closing) never stops the run. A session the editor does not
// know yet (session/new has not answered) holds its updates until it does: an editor drops an
// update for a session id it was never given (Zed does), and with it a warning made while the
// session opened (an MCP server that did not start).
import { type AgentContext, methods, type SessionUpdate } from "@agentclientprotocol/sdk";

export class UpdateSender {
  #queue: Promise<void> = Promise.resolve();
  /** Updates made before the editor knew the session, in order; undefined once it does. */
  #held: SessionUpdate[] | undefined;

  /** `held`: the editor does not know the session id yet (release() once it does). */
  constructor(
    private readonly client: AgentContext,
    readonly sessionId: string,
    private readonly log: (line: string) => void,
    held = false,
  ) {
    this.#held = held ? [] : undefined;
  }

  send(update: SessionUpdate): void {
    if (this.#held) {
      this.#held.push(update);
      return;
    }
    const params = { sessionId: this.sessionId, update };
    this.#queue = this.#queue
      .then(() => this.client.notify(methods.client.session.update, params))
      .catch((error: unknown) => this.log(`an update did not reach the editor: ${String(error)}`));
  }

  /** The editor knows the session now: what was held is sent, in order, and what follows at once. */
  release(): void {
    const held = this.#held ?? [];
    this.#held = undefined;
    for (const update of held) this.send(update);
  }

  /** Resolves once every update sent so far is written. */
  flush(): Promise<void> {
    return this.#queue;
  }
}
