import type { Server } from "node:http";
import type { Socket } from "node:net";

/**
 * Watches `server` for connections that have not sent a request and returns the function that
 * ends them when the app begins to close; from then on, a new connection is ended as it arrives
 * (its requests would only be answered 503). Node counts a connection that has sent nothing as
 * busy (its first request's header timer runs from the connect), so `forceCloseConnections:
 * "idle"` leaves it open and the close waits for it until the headers timeout, a minute by
 * default. Clients do leave them: a pool connects for a request that is aborted meanwhile, or
 * opens more connections than it ends up using. Nothing is in flight on one; ending it loses
 * nothing.
 */
export function unusedConnections(server: Server): () => void {
  const unused = new Set<Socket>();
  let closing = false;
  server.on("connection", (socket: Socket) => {
    if (closing) return socket.destroy();
    unused.add(socket);
    socket.once("close", () => unused.delete(socket));
  });
  server.on("request", (request: { socket: Socket }) => unused.delete(request.socket));
  return () => {
    closing = true;
    for (const socket of unused) socket.destroy();
  };
}
