import { afterEach, describe, expect, it } from "vitest";
import { type FakeMcpServer, startFakeMcpServer } from "../client/support/fake-mcp-server.ts";
import { svcWith } from "./support-run.ts";

let server: FakeMcpServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const envelope = {
  user: { id: "usr_1", handle: "ada" },
  memberships: [],
  work_role: "author",
  scopes: ["read", "contribute", "author"],
};

describe("svc whoami", () => {
  it("prints handle, id, work role and scopes over MCP, found through SVC_BASE_URL and SVC_TOKEN", async () => {
    server = await startFakeMcpServer({ whoami: () => envelope });
    const run = await svcWith(
      { env: { SVC_BASE_URL: server.url, SVC_TOKEN: "svc_t", XDG_CONFIG_HOME: "/nonexistent" } },
      ["whoami"],
    );
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^handle +ada$/m);
    expect(run.stdout).toMatch(/^id +usr_1$/m);
    expect(run.stdout).toMatch(/^work_role +author$/m);
    expect(run.stdout).toMatch(/^scopes +read contribute author$/m);
    expect(server.seen.find((s) => s.rpc === "tools/call")?.authorization).toBe("Bearer svc_t");
  });

  it("prints roles, organizations with role and joined_at, invitations and every grant with grantor and time", async () => {
    server = await startFakeMcpServer({
      whoami: () => ({
        ...envelope,
        roles: ["contributor", "author"],
        memberships: [
          {
            organization_slug: "lab",
            organization_name: "Lab",
            role: "owner",
            joined_at: "2026-03-02T10:00:00.000Z",
          },
        ],
        invitations: [
          {
            organization_slug: "guild",
            organization_name: "Guild",
            role: "member",
            invited_by_handle: "bob",
            invited_at: "2026-03-03T10:00:00.000Z",
          },
        ],
        grants: [
          {
            access: "author",
            granted_by_handle: null,
            granted_at: "2026-03-01T00:00:00.000Z",
            revoked_at: null,
          },
          {
            access: "trusted_author",
            granted_by_handle: "root",
            granted_at: "2026-03-01T01:00:00.000Z",
            revoked_by_handle: "root",
            revoked_at: "2026-03-04T00:00:00.000Z",
          },
        ],
      }),
    });
    const run = await svcWith(
      { env: { SVC_BASE_URL: server.url, SVC_TOKEN: "svc_t", XDG_CONFIG_HOME: "/nonexistent" } },
      ["whoami"],
    );
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^roles +contributor author$/m);
    expect(run.stdout).toMatch(/^organization +lab \(owner, joined 2026-03-02T10:00:00.000Z\)$/m);
    expect(run.stdout).toMatch(/^invited +guild as member by bob/m);
    expect(run.stdout).toMatch(/^grant +author by an operator 2026-03-01T00:00:00.000Z$/m);
    expect(run.stdout).toMatch(
      /^grant +trusted_author by root 2026-03-01T01:00:00.000Z, revoked 2026-03-04T00:00:00.000Z by root$/m,
    );
  });

  it("--json prints the envelope; --server overrides SVC_BASE_URL", async () => {
    server = await startFakeMcpServer({ whoami: () => envelope });
    const run = await svcWith(
      { env: { SVC_BASE_URL: "http://127.0.0.1:1", SVC_TOKEN: "t", XDG_CONFIG_HOME: "/nonexistent" } },
      ["whoami", "--json", "--server", server.url],
    );
    expect(JSON.parse(run.stdout)).toEqual(envelope);
  });

  it("exits 2 without a credential, saying how to sign in", async () => {
    const run = await svcWith({ env: { XDG_CONFIG_HOME: "/nonexistent" } }, ["whoami"]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("svc login --token <token> --server <url>");
    expect(run.stderr).toContain("SVC_BASE_URL and SVC_TOKEN");
  });

  it("exits 1 on a refused token without retrying", async () => {
    server = await startFakeMcpServer({ whoami: () => envelope });
    server.failNext("/mcp", 1, 401);
    const sleeps: number[] = [];
    const run = await svcWith(
      {
        env: { SVC_BASE_URL: server.url, SVC_TOKEN: "revoked", XDG_CONFIG_HOME: "/nonexistent" },
        sleep: async (ms) => {
          sleeps.push(ms);
        },
      },
      ["whoami"],
    );
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("[unauthorized]");
    expect(sleeps).toEqual([]);
  });
});
