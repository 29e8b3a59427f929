import type { McpServer } from "@modelcontextprotocol/server";

/** The protocol era the SDK's serving entry builds a server for (McpRequestContext.era). */
type Era = "legacy" | "modern";

/**
 * Idle McpServers for the stateless /mcp endpoint, so a request does not pay for building a
 * server and registering every tool (about 1 ms of CPU for ~90 tools, most of a get_problem).
 * A server serves one request at a time: it leaves the pool when the SDK's entry takes it and
 * comes back when that request's transport closes. Nothing of a request stays on it: handlers
 * read their caller from the request (createServerFactory), a modern request re-seeds the client
 * identity from its own envelope, and a server that answered a 2025-era `initialize` (which
 * records a client identity on the instance) is dropped instead of reused. Eras never share a
 * server. At most `idle` servers per era wait; beyond that a returning one is dropped.
 */
export function serverPool(build: () => McpServer, idle = 16): (era: Era) => McpServer {
  const pools: Record<Era, McpServer[]> = { legacy: [], modern: [] };
  return (era) => {
    let server = pools[era].pop();
    // The SDK refuses a server still connected to a transport; never hand one out.
    while (server && server.server.transport !== undefined) server = pools[era].pop();
    server ??= build();
    const taken = server;
    taken.server.onclose = () => {
      taken.server.onclose = undefined;
      const reusable =
        taken.server.transport === undefined &&
        (era === "modern" || taken.server.getClientVersion() === undefined);
      if (reusable && pools[era].length < idle) pools[era].push(taken);
    };
    return taken;
  };
}
