import { lookup } from "node:dns/promises";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { hostname } from "node:os";
import { describe, expect, it } from "vitest";
import { refusedAddress } from "../../../src/core/http/outbound-address.ts";
import { refusedUrl, safePost } from "../../../src/core/http/safe-post.ts";

describe("safePost: a POST to an address a user chose", () => {
  it("refuses private, loopback, link-local and special-use addresses, IPv4-mapped ones too", () => {
    for (const address of [
      "10.0.0.1",
      "172.16.5.4",
      "192.168.1.1",
      "169.254.169.254",
      "100.64.0.1",
      "0.0.0.0",
      "224.0.0.1",
      "fe80::1",
      "fc00::1",
      "::",
      "::ffff:10.0.0.1",
      "::ffff:127.0.0.1",
      "127.0.0.1",
      "::1",
      "::127.0.0.1",
      "::a00:1",
      "::ffff:0:a00:1",
      "64:ff9b::a00:1",
      "64:ff9b:1::a00:1",
      "2002:a00:1::1",
      "2001::1",
      "2001:db8::1",
      "fec0::1",
      "198.18.0.1",
      "192.0.2.1",
    ]) {
      expect(refusedAddress(address, false), address).not.toBeNull();
    }
    expect(refusedAddress("127.0.0.1", true)).toBeNull();
    expect(refusedAddress("::1", true)).toBeNull();
    expect(refusedAddress("10.0.0.1", true)).not.toBeNull();
    expect(refusedAddress("169.254.169.254", true)).not.toBeNull();
    expect(refusedAddress("93.184.216.34", false)).toBeNull();
    expect(refusedAddress("2606:2800:220:1:248:1893:25c8:1946", false)).toBeNull();
    // A mapped address is judged by the IPv4 address it carries: a public one passes.
    expect(refusedAddress("::ffff:93.184.216.34", false)).toBeNull();
  });

  it("takes https only unless loopback is allowed, and no credentials", () => {
    expect(refusedUrl("http://example.com/hook", false)).toMatch(/https/);
    expect(refusedUrl("https://example.com/hook", false)).toBeNull();
    expect(refusedUrl("https://user:pw@example.com/hook", false)).toMatch(/password/);
    expect(refusedUrl("https://10.1.2.3/hook", false)).toMatch(/private/);
    expect(refusedUrl("https://[::1]/hook", false)).toMatch(/loopback/);
    expect(refusedUrl("https://localhost/hook", false)).toMatch(/loopback/);
    expect(refusedUrl("https://localhost./hook", false)).toMatch(/loopback/);
    expect(refusedUrl("https://LOCALHOST./hook", false)).toMatch(/loopback/);
    expect(refusedUrl("https://a.localhost./hook", false)).toMatch(/loopback/);
    expect(refusedUrl("not a url", false)).toMatch(/absolute/);
    expect(refusedUrl("http://127.0.0.1:8080/hook", true)).toBeNull();
    expect(refusedUrl("http://169.254.169.254/latest", true)).toMatch(/link-local/);
  });

  it("refuses a host name that resolves to a refused address, after resolution", async () => {
    const name = hostname();
    const { address } = await lookup(name);
    // This machine's own name resolves to one of its own addresses: loopback or private.
    expect(refusedAddress(address, false)).not.toBeNull();
    await expect(safePost(`https://${name}:9/hook`, "{}", {})).rejects.toThrow(/resolves to/);
  });

  it("does not follow redirects and reads a bounded part of the answer", async () => {
    const server = createServer((request, response) => {
      if (request.url === "/redirect") {
        response.writeHead(302, { location: "http://127.0.0.1:1/elsewhere" }).end();
        return;
      }
      response.writeHead(200);
      response.end("x".repeat(200_000));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      expect(await safePost(`${base}/redirect`, "{}", {}, { allowLoopback: true })).toMatchObject({
        status: 302,
      });
      const big = await safePost(`${base}/big`, "{}", {}, { allowLoopback: true, maxResponseBytes: 1024 });
      expect(big.status).toBe(200);
      expect(big.body.length).toBe(1024);
      await expect(safePost(`${base}/big`, "{}", {})).rejects.toThrow(/https/);
    } finally {
      server.close();
    }
  });

  it("delivers to a host name: the name is resolved once, checked, and the checked address dialled", async () => {
    const received: string[] = [];
    const server = createServer((request, response) => {
      let body = "";
      request.on("data", (chunk) => {
        body += chunk;
      });
      request.on("end", () => {
        received.push(`${request.headers.host} ${body}`);
        response.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    const asked: string[] = [];
    const resolve = async (name: string) => {
      asked.push(name);
      return [{ address: "127.0.0.1", family: 4 as const }];
    };
    try {
      // An ordinary name (through a test resolver), and `localhost` through the system's.
      const named = await safePost(
        `http://hooks.example.test:${port}/in`,
        '{"n":1}',
        {},
        {
          allowLoopback: true,
          resolve,
        },
      );
      expect(named.status).toBe(204);
      expect(asked).toEqual(["hooks.example.test"]);
      expect(
        (await safePost(`http://localhost:${port}/in`, '{"n":2}', {}, { allowLoopback: true })).status,
      ).toBe(204);
      expect(received).toEqual([`hooks.example.test:${port} {"n":1}`, `localhost:${port} {"n":2}`]);
      // A name with one refused address among its answers is refused as a whole.
      const mixed = async () => [
        { address: "93.184.216.34", family: 4 as const },
        { address: "10.0.0.1", family: 4 as const },
      ];
      await expect(safePost("https://mixed.example.test/in", "{}", {}, { resolve: mixed })).rejects.toThrow(
        /resolves to 10\.0\.0\.1/,
      );
    } finally {
      server.close();
    }
  });
});
