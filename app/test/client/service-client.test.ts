import { afterEach, describe, expect, it } from "vitest";
import { ServiceCallError } from "../../src/client/service-call-error.ts";
import { openServiceClient, type ServiceClient } from "../../src/client/service-client.ts";
import { withRetries } from "../../src/client/with-retries.ts";
import { type FakeMcpServer, FakeToolError, startFakeMcpServer } from "./support/fake-mcp-server.ts";

let server: FakeMcpServer | undefined;
let client: ServiceClient | undefined;

afterEach(async () => {
  await client?.close();
  await server?.close();
  client = server = undefined;
});

async function start(tools: Parameters<typeof startFakeMcpServer>[0]) {
  server = await startFakeMcpServer(tools);
  client = openServiceClient({ server: server.url, token: "svc_test_token" });
  return { server, client };
}

async function failureOf(promise: Promise<unknown>): Promise<ServiceCallError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ServiceCallError);
  return error as ServiceCallError;
}

describe("openServiceClient", () => {
  it("calls a tool over MCP with the bearer token and returns the parsed envelope", async () => {
    const { server, client } = await start({
      whoami: () => ({ user: { handle: "ada" }, work_role: "author" }),
    });
    expect(await client.callTool("whoami")).toEqual({ user: { handle: "ada" }, work_role: "author" });
    const posts = server.seen.filter((s) => s.path === "/mcp" && s.method === "POST");
    expect(posts.map((s) => s.rpc)).toEqual(["initialize", "notifications/initialized", "tools/call"]);
    expect(posts.every((s) => s.authorization === "Bearer svc_test_token")).toBe(true);
  });

  it("opens the session early on openEarly, and the first call uses that one session", async () => {
    const { server, client } = await start({ whoami: () => ({ user: { handle: "ada" } }) });
    client.openEarly?.();
    expect(await client.callTool("whoami")).toEqual({ user: { handle: "ada" } });
    const posts = server.seen.filter((s) => s.path === "/mcp" && s.method === "POST");
    expect(posts.map((s) => s.rpc)).toEqual(["initialize", "notifications/initialized", "tools/call"]);
  });

  it("reports a failure of openEarly at the first call, as a transient network failure", async () => {
    const { server, client } = await start({});
    await server.close();
    client.openEarly?.();
    expect(await failureOf(client.callTool("whoami"))).toMatchObject({ code: "network", transient: true });
  });

  it("turns a tool error into a ServiceCallError that is not transient, with the service's code", async () => {
    const { client } = await start({
      publish_authoring_upload: () => {
        throw new FakeToolError("stale_plan_hash", "validate again");
      },
    });
    const error = await failureOf(client.callTool("publish_authoring_upload", { upload_id: "upl_1" }));
    expect(error).toMatchObject({ code: "stale_plan_hash", message: "validate again", transient: false });
  });

  it("treats the tool errors internal and unavailable as transient", async () => {
    const { client } = await start({
      whoami: () => {
        throw new FakeToolError("unavailable", "not ready");
      },
    });
    expect((await failureOf(client.callTool("whoami"))).transient).toBe(true);
  });

  it("treats HTTP 5xx and 429 as transient and 401 as not", async () => {
    const { server, client } = await start({ whoami: () => ({}) });
    server.failNext("/mcp", 1, 503);
    expect(await failureOf(client.callTool("whoami"))).toMatchObject({ code: "http", transient: true });
    server.failNext("/mcp", 1, 429);
    expect((await failureOf(client.callTool("whoami"))).transient).toBe(true);
    server.failNext("/mcp", 1, 401);
    expect(await failureOf(client.callTool("whoami"))).toMatchObject({
      code: "unauthorized",
      transient: false,
    });
  });

  it("treats a refused connection as a transient network failure", async () => {
    const { server, client } = await start({});
    await server.close();
    expect(await failureOf(client.callTool("whoami"))).toMatchObject({ code: "network", transient: true });
  });

  it("gives up at the call deadline with a transient timeout", async () => {
    const { server } = await start({ whoami: () => new Promise((resolve) => setTimeout(resolve, 2_000)) });
    const slow = openServiceClient({ server: server.url, token: "t", callDeadlineMs: 200 });
    try {
      expect(await failureOf(slow.callTool("whoami"))).toMatchObject({ code: "timeout", transient: true });
    } finally {
      await slow.close();
    }
  });

  it("recovers on the next call after the server failed the previous ones (retries reconnect)", async () => {
    const { server, client } = await start({ whoami: () => ({ ok: true }) });
    server.failNext("/mcp", 2, 502);
    const waits: number[] = [];
    const result = await withRetries(() => client.callTool("whoami"), {
      sleep: async (ms) => {
        waits.push(ms);
      },
      random: () => 0,
    });
    expect(result).toEqual({ ok: true });
    expect(waits).toEqual([2000, 4000]);
  });
});

describe("putUpload", () => {
  it("PUTs the bytes without the bearer, resolving a relative URL against the server", async () => {
    const { server, client } = await start({});
    await client.putUpload("/up/abc", new TextEncoder().encode("zip bytes"));
    expect(server.puts.get("/up/abc")?.toString()).toBe("zip bytes");
    const put = server.seen.find((s) => s.method === "PUT");
    expect(put?.authorization).toBeUndefined();
  });

  it("fails transiently on 503 and succeeds on retry; fails for good on 403", async () => {
    const { server, client } = await start({});
    server.failNext("/up/", 3, 503);
    const waits: number[] = [];
    await withRetries(() => client.putUpload(`${server.url}/up/x`, new Uint8Array([1, 2, 3])), {
      sleep: async (ms) => {
        waits.push(ms);
      },
      random: () => 0.5,
    });
    expect(waits).toEqual([2200, 4400, 8800]);
    expect(server.puts.get("/up/x")).toEqual(Buffer.from([1, 2, 3]));

    server.failNext("/up/", 1, 403);
    const error = await failureOf(client.putUpload("/up/y", new Uint8Array([1])));
    expect(error).toMatchObject({ code: "http", transient: false });
    expect(error.details.status).toBe(403);
  });
});
