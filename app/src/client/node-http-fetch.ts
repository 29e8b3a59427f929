import type { IncomingMessage, RequestOptions } from "node:http";

/** What the service client asks of an HTTP request: the part of `fetch` it uses. */
export interface ClientRequestInit {
  method: string;
  headers: Record<string, string>;
  body?: string | Uint8Array;
  signal: AbortSignal;
}

/** What the service client reads of an answer: the part of `fetch`'s Response it uses. */
export interface ClientResponse {
  ok: boolean;
  status: number;
  headers: { get(name: string): string | null };
  text(): Promise<string>;
  body: { cancel(): Promise<void> } | null;
}

export type ClientFetch = (url: string | URL, init: ClientRequestInit) => Promise<ClientResponse>;

/**
 * `fetch` as the service client uses it, over `node:http` (`node:https` for https URLs), with the
 * same outcomes: a refused or broken connection rejects with `TypeError("fetch failed")` whose
 * cause is the system error, an aborted signal rejects with its reason, and any status resolves.
 * Why not `fetch` itself: loading undici (Node's fetch) cost 35-50 ms of CPU and wall time in
 * every command that talks to the service (a CPU profile of `svc draft --verify`), more than the
 * rest of the command's networking; `node:http` loads in a few. Redirects are not followed: the
 * service answers `/mcp` and signed uploads directly. Connections are kept alive by Node's global
 * agent, whose idle sockets do not hold the process open.
 */
export const nodeHttpFetch: ClientFetch = (url, init) => {
  const target = typeof url === "string" ? new URL(url) : url;
  const { request } =
    target.protocol === "https:"
      ? process.getBuiltinModule("node:https")
      : process.getBuiltinModule("node:http");
  const body = init.body === undefined ? undefined : Buffer.from(init.body);
  const options: RequestOptions = {
    method: init.method,
    headers: body === undefined ? init.headers : { ...init.headers, "content-length": String(body.length) },
    signal: init.signal,
  };
  return new Promise<ClientResponse>((resolve, reject) => {
    const failed = (error: unknown) => reject(init.signal.aborted ? init.signal.reason : fetchFailed(error));
    const outgoing = request(target, options, (response) => resolve(clientResponse(response, init.signal)));
    outgoing.on("error", failed);
    outgoing.end(body);
  });
};

function clientResponse(response: IncomingMessage, signal: AbortSignal): ClientResponse {
  const status = response.statusCode ?? 0;
  return {
    ok: status >= 200 && status < 300,
    status,
    headers: {
      get(name) {
        const value = response.headers[name.toLowerCase()];
        return value === undefined ? null : Array.isArray(value) ? value.join(", ") : value;
      },
    },
    text: () =>
      new Promise<string>((resolve, reject) => {
        const chunks: Buffer[] = [];
        response.on("data", (chunk: Buffer) => chunks.push(chunk));
        response.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
        response.on("error", (error) => reject(signal.aborted ? signal.reason : fetchFailed(error)));
      }),
    body: {
      // Read to the end and dropped, so the connection can serve the next request.
      cancel: () =>
        new Promise<void>((resolve) => {
          if (response.readableEnded || response.destroyed) return resolve();
          response.on("end", resolve).on("error", () => resolve());
          response.resume();
        }),
    },
  };
}

/** A connection failure as `fetch` reports it (classify in service-client.ts reads the cause's code). */
function fetchFailed(error: unknown): TypeError {
  return new TypeError("fetch failed", { cause: error });
}
