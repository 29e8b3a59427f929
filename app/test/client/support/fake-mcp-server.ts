import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** A tool handler of the fake: returns the envelope, or throws a FakeToolError. */
export type FakeTool = (input: Record<string, unknown>) => unknown;

export class FakeToolError extends Error {
  readonly code: string;
  constructor(code: string, message: string) {
    super(message);
    this.code = code;
  }
}

export interface FakeMcpServer {
  url: string;
  /** Every request seen: method, path, authorization header, JSON-RPC method. */
  seen: Array<{ method: string; path: string; authorization: string | undefined; rpc?: string }>;
  /** The next `n` HTTP requests to `path` are answered with `status`. */
  failNext(path: string, n: number, status: number): void;
  /** Bodies PUT to `/up/...`. */
  puts: Map<string, Buffer>;
  close(): Promise<void>;
}

/**
 * A minimal MCP server over Streamable HTTP (JSON responses, no sessions) speaking just enough of
 * the protocol for the CLI's client: initialize, the initialized notification, tools/call. Tool
 * results are one JSON envelope in text content; a FakeToolError becomes a tool error
 * `{error: {code, message}}`. It also accepts `PUT /up/<anything>`. Failures are injected per path.
 */
export async function startFakeMcpServer(tools: Record<string, FakeTool>): Promise<FakeMcpServer> {
  const seen: FakeMcpServer["seen"] = [];
  const failures = new Map<string, { n: number; status: number }>();
  const puts = new Map<string, Buffer>();

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const path = (req.url ?? "/").split("?")[0]!;
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    let message: { id?: number; method?: string; params?: Record<string, unknown> } = {};
    if (req.method === "POST" && body.length > 0) message = JSON.parse(body.toString("utf8"));
    seen.push({
      method: req.method ?? "",
      path,
      authorization: req.headers.authorization,
      rpc: message.method,
    });

    const failure = failures.get(path.startsWith("/up/") ? "/up/" : path);
    if (failure && failure.n > 0) {
      failure.n -= 1;
      res.writeHead(failure.status, { "content-type": "text/plain" }).end(`injected ${failure.status}`);
      return;
    }
    if (req.method === "PUT" && path.startsWith("/up/")) {
      puts.set(path, body);
      res.writeHead(200, { "content-type": "application/json" }).end("{}");
      return;
    }
    if (path !== "/mcp") {
      res.writeHead(404).end();
      return;
    }
    if (req.method !== "POST") {
      res.writeHead(405).end();
      return;
    }
    if (message.id === undefined) {
      res.writeHead(202).end();
      return;
    }
    const reply = (result: unknown) =>
      res
        .writeHead(200, { "content-type": "application/json" })
        .end(JSON.stringify({ jsonrpc: "2.0", id: message.id, result }));
    if (message.method === "initialize") {
      reply({
        protocolVersion: message.params?.protocolVersion,
        capabilities: { tools: {} },
        serverInfo: { name: "fake-svc", version: "0" },
      });
      return;
    }
    if (message.method === "tools/call") {
      const name = String(message.params?.name);
      const tool = tools[name];
      if (!tool) {
        reply(envelope({ error: { code: "not_found", message: `no tool ${name}` } }, true));
        return;
      }
      try {
        reply(envelope(await tool((message.params?.arguments ?? {}) as Record<string, unknown>), false));
      } catch (error) {
        if (!(error instanceof FakeToolError)) throw error;
        reply(envelope({ error: { code: error.code, message: error.message } }, true));
      }
      return;
    }
    res.writeHead(200, { "content-type": "application/json" }).end(
      JSON.stringify({
        jsonrpc: "2.0",
        id: message.id,
        error: { code: -32601, message: "no such method" },
      }),
    );
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((error) => res.writeHead(500).end(String(error)));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    puts,
    failNext: (path, n, status) => failures.set(path, { n, status }),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function envelope(value: unknown, isError: boolean) {
  return { content: [{ type: "text", text: JSON.stringify(value) }], isError };
}
