/**
 * The load of bench/mcp in a process of its own, so the server's process pays only for serving
 * (issue 36): `node bench/mcp/load-client.ts <target> <url> <token> <problems> <seconds> <concurrency>`
 * drives get_problem for `seconds` and prints `{"callsPerSecond", "calls", "clientCpuMs"}`, where
 * `calls` counts every call the server answered for it (the warm-up included), so the server's
 * CPU over the whole run divides by it. Targets:
 * - `mcp`: the SDK client, 2025 protocol; `mcp-modern`: the SDK client on 2026-07-28;
 * - `mcp-fetch`: the SDK client's handshake, then the same `fetch` loop as `plain` posting the
 *   JSON-RPC `tools/call` the SDK client sends, with its headers: the client costs what the plain
 *   route's costs, so the calls/s ratio is the servers' (the SDK client costs more than either);
 * - `plain`: `fetch` of the bench's plain route; `api`: `fetch` of the service's own
 *   `GET /api/problems/{slug}` with the token.
 */
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { throughput } from "../support/measure.ts";

const [target, url, token, problems, seconds, concurrency] = process.argv.slice(2);
const slug = (i: number) => `bench-${(i * 7919) % Number(problems)}`;
const options = { seconds: Number(seconds), concurrency: Number(concurrency) };
const authorization = `Bearer ${token}`;

/** GET of a JSON route, failing on anything but 200. */
const getJson = async (path: string, headers: Record<string, string> = {}) => {
  const response = await fetch(`${url}${path}`, { headers });
  if (!response.ok) throw new Error(`GET ${path} failed: ${response.status} ${await response.text()}`);
  return response.json();
};

let calls = 0;
const cpu = process.cpuUsage();
let callsPerSecond: number;
if (target === "plain") {
  callsPerSecond = await throughput(async (i) => {
    calls++;
    return getJson(`/problems/${slug(i)}`);
  }, options);
} else if (target === "api") {
  callsPerSecond = await throughput(async (i) => {
    calls++;
    return getJson(`/api/problems/${slug(i)}`, { authorization });
  }, options);
} else {
  const client = new Client(
    { name: `bench-${target}`, version: "1.0.0" },
    target === "mcp-modern" ? { versionNegotiation: { mode: { pin: "2026-07-28" } } } : {},
  );
  const transport = new StreamableHTTPClientTransport(new URL(`${url}/mcp`), {
    requestInit: { headers: { authorization } },
  });
  await client.connect(transport);
  if (target === "mcp-fetch") {
    const headers = {
      authorization,
      accept: "application/json, text/event-stream",
      "content-type": "application/json",
      "mcp-protocol-version": transport.protocolVersion!,
    };
    callsPerSecond = await throughput(async (i) => {
      calls++;
      const body = {
        jsonrpc: "2.0",
        id: i,
        method: "tools/call",
        params: { name: "get_problem", arguments: { problem: slug(i) } },
      };
      const response = await fetch(`${url}/mcp`, { method: "POST", headers, body: JSON.stringify(body) });
      const answer = (await response.json()) as { result?: { isError?: boolean } };
      if (!response.ok || answer.result === undefined || answer.result.isError) {
        throw new Error(`get_problem failed: ${response.status} ${JSON.stringify(answer)}`);
      }
    }, options);
  } else {
    callsPerSecond = await throughput(async (i) => {
      calls++;
      const result = await client.callTool({ name: "get_problem", arguments: { problem: slug(i) } });
      if (result.isError) throw new Error(`get_problem failed: ${JSON.stringify(result.content)}`);
    }, options);
  }
  await client.close();
}
const used = process.cpuUsage(cpu);
console.log(JSON.stringify({ callsPerSecond, calls, clientCpuMs: (used.user + used.system) / 1000 }));
