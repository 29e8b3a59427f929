import type {
  JSONRPCMessage,
  JSONRPCRequest,
  JSONRPCResponse,
  MessageExtraInfo,
  ScopeChallengeHandler,
  Transport,
} from "@modelcontextprotocol/server";

/** One request handed to the server: its answer, and a way to give up on it. */
export interface Exchange {
  /** The server's answer with the caller's own id; undefined once cancelled. */
  answer: Promise<JSONRPCResponse | undefined>;
  /** The caller went away: the server is told (`notifications/cancelled`) and the answer is undefined. */
  cancel(): void;
}

/**
 * A Transport (the SDK's own interface for carrying messages to a server) over which one
 * long-lived McpServer answers many HTTP exchanges at once, so no request pays for a transport,
 * a connect and a close of its own. The server sees each request under an id of this
 * transport's (two callers may both send id 1) and the answer goes back under the caller's.
 * Only answers travel back: what a handler sends before its result (a notification, a request to
 * the client) is dropped, as the SDK's own transport drops it when it answers with JSON.
 * Nothing of a request stays on the transport once it is answered or cancelled.
 */
export class ExchangeTransport implements Transport {
  onmessage?: Transport["onmessage"];
  onclose?: () => void;
  onerror?: (error: Error) => void;
  /** The protocol versions the connected server accepts (set by the SDK's connect). */
  supportedProtocolVersions: readonly string[] = [];
  /** The connected McpServer's step-up resolver (set by the SDK's connect). */
  scopeChallenge?: ScopeChallengeHandler;
  readonly #waiting = new Map<number, (answer: JSONRPCResponse | undefined) => void>();
  #nextId = 0;

  async start(): Promise<void> {}

  setSupportedProtocolVersions(versions: string[]): void {
    this.supportedProtocolVersions = versions;
  }

  setScopeChallengeResolver(resolver: ScopeChallengeHandler): void {
    this.scopeChallenge = resolver;
  }

  exchange(request: JSONRPCRequest, extra: MessageExtraInfo): Exchange {
    const deliver = this.onmessage;
    if (deliver === undefined) throw new Error("ExchangeTransport: no server is connected");
    const id = ++this.#nextId;
    const answer = new Promise<JSONRPCResponse | undefined>((resolve) => {
      this.#waiting.set(id, (response) =>
        resolve(response === undefined ? undefined : { ...response, id: request.id }),
      );
    });
    deliver({ ...request, id }, extra);
    return {
      answer,
      cancel: () => {
        const resolve = this.#waiting.get(id);
        if (resolve === undefined) return;
        this.#waiting.delete(id);
        resolve(undefined);
        deliver({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: id } });
      },
    };
  }

  async send(message: JSONRPCMessage): Promise<void> {
    // An answer carries an id and a result or an error; anything else is dropped (see above).
    if (!("id" in message) || !("result" in message || "error" in message)) return;
    const id = message.id as number;
    const resolve = this.#waiting.get(id);
    if (resolve === undefined) return;
    this.#waiting.delete(id);
    resolve(message);
  }

  async close(): Promise<void> {
    for (const resolve of this.#waiting.values()) resolve(undefined);
    this.#waiting.clear();
    this.onclose?.();
  }
}
