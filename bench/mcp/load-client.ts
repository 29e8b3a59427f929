/**
 * The load of bench/mcp in a process of its own, so the server's process pays only for serving
 * (issue 36): `node bench/mcp/load-client.ts <target> <url> <token> <problems> <seconds> <concurrency>`
 * drives get_problem through one client for `seconds` and prints `{"callsPerSecond": n}`.
 * Targets: `mcp` (the SDK client, 2025 protocol), `mcp-modern` (the SDK client on 2026-07-28),
 * `plain` (fetch of the plain route).
 */
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { throughput } from "../support/measure.ts";

const [target, url, token, problems, seconds, concurrency] = process.argv.slice(2);
const slug = (i: number) => `bench-${(i * 7919) % Number(problems)}`;
const options = { seconds: Number(seconds), concurrency: Number(concurrency) };

let callsPerSecond: number;
if (target === "plain") {
  callsPerSecond = await throughput(async (i) => (await fetch(`${url}/problems/${slug(i)}`)).json(), options);
} else {
  const client = new Client(
    { name: `bench-${target}`, version: "1.0.0" },
    target === "mcp-modern" ? { versionNegotiation: { mode: { pin: "2026-07-28" } } } : {},
  );
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${url}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    }),
  );
  callsPerSecond = await throughput(async (i) => {
    const result = await client.callTool({ name: "get_problem", arguments: { problem: slug(i) } });
    if (result.isError) throw new Error(`get_problem failed: ${JSON.stringify(result.content)}`);
  }, options);
  await client.close();
}
console.log(JSON.stringify({ callsPerSecond }));
