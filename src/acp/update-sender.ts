// session/update notifications of one session, sent in the order they were made: a turn's
// updates all reach the editor before its session/prompt answer (flush), and one the editor
// could not take (the connection closing) never stops the run.
import { type AgentContext, methods, type SessionUpdate } from "@agentclientprotocol/sdk";

export class UpdateSender {
  #queue: Promise<void> = Promise.resolve();

  constructor(
    private readonly client: AgentContext,
    readonly sessionId: string,
    private readonly log: (line: string) => void,
  ) {}

  send(update: SessionUpdate): void {
    const params = { sessionId: this.sessionId, update };
    this.#queue = this.#queue
      .then(() => this.client.notify(methods.client.session.update, params))
      .catch((error: unknown) => this.log(`an update did not reach the editor: ${String(error)}`));
  }

  /** Resolves once every update sent so far is written. */
  flush(): Promise<void> {
    return this.#queue;
  }
}
