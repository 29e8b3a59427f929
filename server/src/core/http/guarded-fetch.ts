import { connect as netConnect, type Socket } from "node:net";
import { connect as tlsConnect } from "node:tls";
import { allowedAddresses, type OutboundPolicy } from "./outbound-address.ts";

/** The `fetch` signature oidc-provider calls (its `fetch` option), with undici's dispatcher. */
export type GuardedFetch = (
  url: string,
  options: RequestInit & { dispatcher?: unknown },
) => Promise<Response>;

/** What undici hands a custom connector for each new connection. */
interface ConnectOptions {
  hostname: string;
  protocol: string;
  port: string;
  servername?: string;
}
type Connector = (options: ConnectOptions, callback: (error: Error | null, socket?: Socket) => void) => void;

/** The constructor of Node's built-in fetch dispatcher (undici's Agent), which Node does not export. */
function builtInAgent(): new (options: { connect: Connector }) => unknown {
  void Response; // loads Node's fetch implementation, which installs the global dispatcher
  const symbols = [Symbol.for("undici.globalDispatcher.2"), Symbol.for("undici.globalDispatcher.1")];
  const dispatcher = symbols.map((s) => (globalThis as Record<symbol, unknown>)[s]).find(Boolean);
  if (!dispatcher) throw new Error("Node's fetch dispatcher is unavailable");
  return (dispatcher as { constructor: new (options: { connect: Connector }) => unknown }).constructor;
}

/**
 * A connector that decides before dialling: the host (an IP literal, or a name resolved here once)
 * must pass `policy`, and the socket is opened to the checked address itself, with the name kept
 * for TLS (SNI and certificate). Every connection goes through it, a redirect's too, so no
 * special-use address is ever dialled: not even a SYN that would tell a closed port from an open one.
 */
function guardedConnector(policy: OutboundPolicy, rejectUnauthorized: boolean): Connector {
  return (options, callback) => {
    const host = options.hostname.replace(/^\[|\]$/g, "");
    const https = options.protocol === "https:";
    const port = Number(options.port) || (https ? 443 : 80);
    allowedAddresses(host, policy).then(
      ([{ address }]) => {
        let settled = false;
        const settle = (error: Error | null, socket?: Socket) => {
          if (settled) return;
          settled = true;
          callback(error, socket);
        };
        const socket = https
          ? tlsConnect({
              host: address,
              port,
              servername: options.servername || (address === host ? undefined : host),
              ALPNProtocols: ["http/1.1"],
              rejectUnauthorized,
            })
          : netConnect({ host: address, port });
        socket.setNoDelay(true);
        socket.once(https ? "secureConnect" : "connect", () => settle(null, socket));
        socket.on("error", (error) => settle(error));
      },
      (error: Error) => callback(error),
    );
  };
}

/**
 * The `fetch` the service gives libraries that fetch user-chosen URLs (oidc-provider's Client ID
 * Metadata Documents, JWKS and sector URIs): every connection is decided by `policy` before it is
 * opened (guardedConnector). `rejectUnauthorized: false` is for tests' self-signed servers only.
 */
export function guardedFetch(policy: OutboundPolicy = {}, { rejectUnauthorized = true } = {}): GuardedFetch {
  const Agent = builtInAgent();
  const dispatcher = new Agent({ connect: guardedConnector(policy, rejectUnauthorized) });
  // oidc-provider sets its own dispatcher (which checks only once connected); this one replaces it.
  return (url, options) => fetch(url, { ...options, dispatcher } as RequestInit);
}
