import { Agent, createServer, request } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A round-robin HTTP load balancer on loopback, standing in for the one in front of a fleet's web
 * replicas. It behaves like nginx with `proxy_next_upstream off` and `max_fails=1`: a request whose
 * upstream cannot be reached is answered 502 (the client retries), and that upstream is left out
 * for `downForMs`. It never retries a request itself, so a test sees the client's own retries.
 */
export interface LoadBalancer {
  url: string;
  setUpstreams(urls: readonly string[]): void;
  /** The next request goes to this upstream (to make a test's first failure deterministic). */
  sendNextTo(url: string): void;
  /** Requests answered 502 because their upstream could not be reached. */
  readonly badGateways: number;
  /** Requests each upstream answered, by URL. */
  readonly served: Readonly<Record<string, number>>;
  close(): Promise<void>;
}

export async function startLoadBalancer({ downForMs = 30_000 } = {}): Promise<LoadBalancer> {
  let upstreams: string[] = [];
  let next = 0;
  let badGateways = 0;
  const served: Record<string, number> = {};
  const downUntil = new Map<string, number>();
  const agent = new Agent({ keepAlive: true });

  const pick = (): string | undefined => {
    for (let tried = 0; tried < upstreams.length; tried++) {
      const candidate = upstreams[next++ % upstreams.length]!;
      if ((downUntil.get(candidate) ?? 0) <= Date.now()) return candidate;
    }
    return undefined;
  };

  const server = createServer((req, res) => {
    const upstream = pick();
    const fail = () => {
      badGateways += 1;
      if (!res.headersSent) {
        res.writeHead(502, { "content-type": "application/json", connection: "close" });
        res.end('{"error":{"code":"bad_gateway","message":"no upstream answered"}}');
      } else {
        res.destroy();
      }
    };
    if (!upstream) {
      req.resume();
      fail();
      return;
    }
    const target = new URL(req.url ?? "/", upstream);
    const forward = request(
      target,
      { method: req.method, headers: { ...req.headers, "x-forwarded-for": "127.0.0.1" }, agent },
      (answer) => {
        served[upstream] = (served[upstream] ?? 0) + 1;
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    forward.on("error", () => {
      downUntil.set(upstream, Date.now() + downForMs);
      fail();
    });
    req.pipe(forward);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    setUpstreams(urls) {
      upstreams = [...urls];
    },
    sendNextTo(url) {
      next = upstreams.indexOf(url);
      downUntil.delete(url);
    },
    get badGateways() {
      return badGateways;
    },
    served,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      agent.destroy();
    },
  };
}
