import { once } from "node:events";
import { createServer } from "node:http";
import { connect, type Socket } from "node:net";
import { afterEach, expect, it } from "vitest";
import { unusedConnections } from "../../../src/edges/http/unused-connections.ts";
import { describeWithDatabase, useTestDatabase } from "../../support/test-database.ts";
import { testServices } from "../../support/test-services.ts";
import { startApp } from "../mcp/support/start-app.ts";

const sockets: Socket[] = [];
afterEach(() => {
  for (const socket of sockets.splice(0)) socket.destroy();
});

async function open(port: number): Promise<Socket> {
  const socket = connect({ host: "127.0.0.1", port });
  sockets.push(socket);
  await once(socket, "connect");
  return socket;
}

/** Resolves when the server has ended the socket. */
const ended = (socket: Socket) =>
  new Promise<void>((resolve) => {
    if (socket.destroyed || socket.readableEnded) return resolve();
    socket.once("close", () => resolve());
  });

it("ends the connections that sent no request, and every connection that arrives after, but not one that served a request", async () => {
  const server = createServer((_request, response) => response.end("ok"));
  const endUnused = unusedConnections(server);
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as { port: number };
  try {
    const silent = await open(port);
    const used = await open(port);
    used.write("GET / HTTP/1.1\r\nhost: x\r\n\r\n");
    const [answer] = (await once(used, "data")) as [Buffer];
    expect(answer.toString()).toContain("200 OK");

    endUnused();
    await ended(silent);
    expect(silent.destroyed || silent.readableEnded).toBe(true);
    // A connection that served a request is left to Node's own idle handling.
    expect(used.destroyed).toBe(false);
    const late = await open(port);
    await ended(late);
  } finally {
    server.closeAllConnections();
    server.close();
  }
});

describeWithDatabase("closing the app", () => {
  const db = useTestDatabase();

  it("does not wait for a connection that never sent a request (Node would hold it until the headers timeout)", async () => {
    const app = await startApp(testServices(db.sql));
    const silent = await open(Number(new URL(app.url).port));
    // Without the fix this close waits a minute; the test's own timeout fails first.
    await app.close();
    await ended(silent);
  });
});
