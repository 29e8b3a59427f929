import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tools } from "../../../src/edges/mcp/tools/tools.ts";
import { DEFAULT_TOOLSETS, Toolset } from "../../../src/edges/mcp/toolsets.ts";
import { addUser, grantCapability, grantRole, issueToken, revokeRole } from "../../../src/users/index.ts";
import { describeWithDatabase, useTestDatabase } from "../../support/test-database.ts";
import { testServices } from "../../support/test-services.ts";
import { envelopeOf, type ToolCallResult } from "./support/mcp-clients.ts";
import { type RunningApp, startApp } from "./support/start-app.ts";

/** The default list's budget: 6,000 tokens, counted as characters / 4 (issue 36). */
const DEFAULT_LIST_BUDGET_CHARS = 6000 * 4;

describe("the toolset registry rule", () => {
  it("puts every tool in exactly one known set, and every set has tools", () => {
    const known = new Set<string>(Object.values(Toolset));
    const without = tools.filter((tool) => !known.has(tool.toolset)).map((tool) => tool.name);
    expect(without, "tools without a known toolset (add `toolset: Toolset.<set>`)").toEqual([]);
    for (const set of Object.values(Toolset)) {
      expect(
        tools.some((tool) => tool.toolset === set),
        `${set} has no tool`,
      ).toBe(true);
    }
  });
});

describeWithDatabase("toolsets and what tools/list shows a caller", () => {
  const db = useTestDatabase();
  let app: RunningApp;
  let solver: string;
  let reader: string;
  let admin: string;
  let adminId: string;

  beforeAll(async () => {
    await addUser(db.sql, { handle: "solver" });
    ({ token: solver } = await issueToken(db.sql, "solver", ["read", "contribute"]));
    await addUser(db.sql, { handle: "reader" });
    ({ token: reader } = await issueToken(db.sql, "reader", ["read"]));
    const root = await addUser(db.sql, { handle: "root" });
    adminId = root.id;
    await grantRole(db.sql, { userId: root.id, role: "administrator" });
    await grantCapability(db.sql, { userId: root.id, capability: "author" });
    ({ token: admin } = await issueToken(db.sql, "root", ["read", "contribute"]));
    app = await startApp(testServices(db.sql));
  });
  afterAll(() => app?.close());

  async function connect(token: string, query = "", headers: Record<string, string> = {}) {
    const client = new Client({ name: "toolsets-test", version: "1.0.0" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${app.url}/mcp${query}`), {
        requestInit: { headers: { authorization: `Bearer ${token}`, ...headers } },
      }),
    );
    return client;
  }
  async function listed(token: string, query = "", headers: Record<string, string> = {}) {
    const client = await connect(token, query, headers);
    try {
      return (await client.listTools(undefined, { cacheMode: "bypass" })).tools;
    } finally {
      await client.close();
    }
  }
  const namesIn = (...sets: string[]) =>
    tools
      .filter((tool) => sets.includes(tool.toolset))
      .map((tool) => tool.name)
      .sort();

  it("lists the default sets, for a solving agent, under 6,000 tokens (characters / 4)", async () => {
    const list = await listed(solver);
    expect(list.map((tool) => tool.name).sort()).toEqual(namesIn(...DEFAULT_TOOLSETS));
    const chars = JSON.stringify({ tools: list }).length;
    console.log(
      `default tools/list (${DEFAULT_TOOLSETS.join(", ")}): ${list.length} tools, ${chars} characters, ` +
        `~${Math.round(chars / 4)} tokens; every set: ${JSON.stringify({ tools: await listed(admin, "?toolsets=all") }).length} characters`,
    );
    expect(chars).toBeLessThan(DEFAULT_LIST_BUDGET_CHARS);
  });

  it("reaches every tool by naming its set, in the query or the X-MCP-Toolsets header", async () => {
    for (const set of Object.values(Toolset)) {
      const byQuery = await listed(admin, `?toolsets=${set}`);
      expect(byQuery.map((tool) => tool.name).sort(), set).toEqual(namesIn(set));
    }
    const byHeader = await listed(admin, "", { "x-mcp-toolsets": "review, sealed" });
    expect(byHeader.map((tool) => tool.name).sort()).toEqual(namesIn("review", "sealed"));
    const both = await listed(admin, "?toolsets=agents", { "x-mcp-toolsets": "organizations" });
    expect(both.map((tool) => tool.name).sort()).toEqual(namesIn("agents", "organizations"));
    const all = await listed(admin, "?toolsets=all");
    expect(all.map((tool) => tool.name).sort()).toEqual(tools.map((tool) => tool.name).sort());
  });

  it("refuses an unknown set with 400, naming the known ones", async () => {
    const response = await fetch(`${app.url}/mcp?toolsets=solving,sovling`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${solver}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} }),
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({
      error: {
        code: "invalid_input",
        field: "toolsets",
        message: expect.stringMatching(/unknown toolset "sovling".*discovery.*solving/),
      },
    });
  });

  it("shows a read-only token no write tool, whatever sets it asks for", async () => {
    const list = await listed(reader, "?toolsets=all");
    expect(list.length).toBeGreaterThan(0);
    expect(list.filter((tool) => tool.annotations?.readOnlyHint !== true).map((tool) => tool.name)).toEqual(
      [],
    );
    expect(list.map((tool) => tool.name).sort()).toEqual(
      tools
        .filter((tool) => tool.scope === "read")
        .map((tool) => tool.name)
        .sort(),
    );
  });

  it("shows administrator tools only to a live administrator, and hides them on revocation", async () => {
    const administration = namesIn("administration");
    expect(administration.length).toBeGreaterThan(0);
    expect((await listed(solver, "?toolsets=administration")).map((tool) => tool.name)).toEqual([]);
    expect((await listed(admin, "?toolsets=administration")).map((tool) => tool.name).sort()).toEqual(
      administration,
    );
    // The role is read live on each list: revoked, the tools are gone on the next one.
    await revokeRole(db.sql, { userId: adminId, role: "administrator" });
    try {
      expect((await listed(admin, "?toolsets=administration")).map((tool) => tool.name)).toEqual([]);
    } finally {
      await grantRole(db.sql, { userId: adminId, role: "administrator" });
    }
  });

  it("still answers a hidden tool's usual refusal when it is called", async () => {
    const client = await connect(reader);
    try {
      // Not in the default sets and not in a read-only token's list: the scope refusal.
      const write = (await client.callTool({
        name: "withdraw_artifact",
        arguments: {},
      })) as ToolCallResult;
      expect(write.isError).toBe(true);
      expect(envelopeOf(write)).toMatchObject({
        error: { code: "forbidden", scope: "contribute", tool: "withdraw_artifact" },
      });
    } finally {
      await client.close();
    }
    const solving = await connect(solver);
    try {
      // An administrator tool outside the chosen sets: the role refusal from its domain function.
      const adminOnly = (await solving.callTool({
        name: "list_publication_requests",
        arguments: {},
      })) as ToolCallResult;
      expect(adminOnly.isError).toBe(true);
      expect(envelopeOf(adminOnly)).toMatchObject({ error: { code: "forbidden" } });
    } finally {
      await solving.close();
    }
  });
});
