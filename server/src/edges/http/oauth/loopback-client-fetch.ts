import { isIP } from "node:net";

type Fetch = (url: string, options: RequestInit & { dispatcher?: unknown }) => Promise<Response>;

/** The constructor of Node's built-in fetch dispatcher (undici's Agent), which Node does not export. */
function builtInAgent(): new (options: Record<string, unknown>) => unknown {
  void Response; // loads Node's fetch implementation, which installs the global dispatcher
  const symbols = [Symbol.for("undici.globalDispatcher.2"), Symbol.for("undici.globalDispatcher.1")];
  const dispatcher = symbols.map((s) => (globalThis as Record<symbol, unknown>)[s]).find(Boolean);
  if (!dispatcher) throw new Error("Node's fetch dispatcher is unavailable");
  return (dispatcher as { constructor: new (options: Record<string, unknown>) => unknown }).constructor;
}

/**
 * TEST ONLY (`SVC_OAUTH_ALLOW_LOOPBACK_CLIENTS=1`): fetches client metadata documents from
 * `https://127.0.0.1:<port>/...` or `https://localhost:<port>/...` served with a self-signed
 * certificate. oidc-provider's own fetch refuses every special-use address after DNS resolution
 * (it checks the connected socket's address, so the address used is the one checked); this one
 * replaces it and refuses everything that is not loopback, so a test server is the only target.
 */
export function loopbackClientFetch(): Fetch {
  const Agent = builtInAgent();
  const dispatcher = new Agent({ connect: { rejectUnauthorized: false } });
  return async (url, options) => {
    const { hostname } = new URL(url);
    const host = hostname.replace(/^\[|\]$/g, "");
    const loopback = host === "localhost" || (isIP(host) !== 0 && /^(127\.|::1$)/.test(host));
    if (!loopback) throw new Error(`loopback-only client fetch refused ${hostname}`);
    return fetch(url, { ...options, dispatcher } as RequestInit);
  };
}
