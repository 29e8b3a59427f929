import { request as httpRequest } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { defineTool, type Tool } from "../../../src/edges/mcp/tools/tool.ts";
import { tools } from "../../../src/edges/mcp/tools/tools.ts";
import { addUser, grantRole, issueToken, revokeToken } from "../../../src/users/index.ts";
import { executeVerificationRun } from "../../../src/verification/execute-verification-run.ts";
import { newAuthor } from "../../authoring/support/authoring-harness.ts";
import { seedImplementation, seedProtocol } from "../../support/seed-records.ts";
import { describeWithDatabase, useTestDatabase } from "../../support/test-database.ts";
import { testServices } from "../../support/test-services.ts";
import {
  type PublishedProblem,
  passConformance,
  publishProblem,
  seedSubmission,
} from "../../verification/support/verification-harness.ts";
import { legacyRpc, modernRpc } from "./support/json-rpc.ts";
import { clientLines, envelopeOf } from "./support/mcp-clients.ts";
import { type RunningApp, startApp, startMcpApp } from "./support/start-app.ts";

/** Sends a GET with an explicit Host header (fetch does not let a caller set one). */
function getWithHost(url: string, path: string, host: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const target = new URL(path, url);
    const req = httpRequest(target, { headers: { host } }, (res) => {
      let body = "";
      res.on("data", (chunk) => {
        body += chunk;
      });
      res.on("end", () => resolve({ status: res.statusCode!, body }));
    });
    req.on("error", reject);
    req.end();
  });
}

const contributeTools = tools.filter((t) => t.scope === "contribute");

describeWithDatabase("authentication on /mcp", () => {
  const db = useTestDatabase();
  let app: RunningApp;
  let readToken: string;

  beforeAll(async () => {
    await addUser(db.sql, { handle: "reader" });
    ({ token: readToken } = await issueToken(db.sql, "reader", ["read"]));
    app = await startApp(testServices(db.sql));
  });
  afterAll(() => app?.close());

  it("answers a request without a token 401, naming the metadata document in WWW-Authenticate", async () => {
    const { status, headers, body } = await modernRpc(app.url, null, "tools/list");
    expect(status).toBe(401);
    expect(headers.get("www-authenticate")).toBe(
      `Bearer resource_metadata="${app.url}/.well-known/oauth-protected-resource/mcp"`,
    );
    expect(body).toEqual({
      error: { code: "unauthorized", message: expect.stringContaining("svc-server token issue") },
    });
  });

  it("authenticates before reading the body", async () => {
    const response = await fetch(`${app.url}/mcp`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{not json",
    });
    expect(response.status).toBe(401);
  });

  it("answers an unknown or revoked token 401 with error=invalid_token", async () => {
    await addUser(db.sql, { handle: "revoked" });
    const revoked = await issueToken(db.sql, "revoked", ["read"]);
    await revokeToken(db.sql, revoked.prefix);
    for (const token of ["svc_0000000000000000000000000000000000000000", revoked.token, "not-a-token"]) {
      const { status, headers, body } = await legacyRpc(app.url, token, "tools/list");
      expect(status).toBe(401);
      expect(headers.get("www-authenticate")).toBe(
        `Bearer error="invalid_token", resource_metadata="${app.url}/.well-known/oauth-protected-resource/mcp"`,
      );
      expect(body).toMatchObject({ error: { code: "unauthorized" } });
    }
  });

  it("refuses every client line with an unknown token", async () => {
    for (const { connect } of clientLines) {
      await expect(connect(app.url, "svc_0000000000000000000000000000000000000000")).rejects.toThrow();
    }
  });

  it("serves the protected-resource metadata of /mcp and of the origin (RFC 9728)", async () => {
    const forMcp = await fetch(`${app.url}/.well-known/oauth-protected-resource/mcp`);
    expect(forMcp.status).toBe(200);
    expect(await forMcp.json()).toEqual({
      resource: `${app.url}/mcp`,
      authorization_servers: [app.url],
      scopes_supported: ["read", "contribute"],
      bearer_methods_supported: ["header"],
      resource_name: "svc",
    });
    const forOrigin = await fetch(`${app.url}/.well-known/oauth-protected-resource`);
    // RFC 9728 section 3.3: `resource` is the URL the document was fetched for, without the well-known part.
    expect(await forOrigin.json()).toMatchObject({
      resource: app.url,
      scopes_supported: ["read", "contribute"],
    });
  });

  describe("the authorization matrix of every registered tool", () => {
    it.each(tools.map((t) => ({ name: t.name })))(
      "$name: no token is 401 before any tool runs",
      async ({ name }) => {
        const { status, body } = await modernRpc(app.url, null, "tools/call", { name, arguments: {} });
        expect(status).toBe(401);
        expect(body).toMatchObject({ error: { code: "unauthorized" } });
      },
    );

    it("covers the registry: it has read tools and contribute tools", () => {
      expect(tools.length).toBeGreaterThan(contributeTools.length);
      expect(contributeTools.map((t) => t.name)).toEqual(
        expect.arrayContaining([
          "publish_authoring_upload",
          "set_work_visibility",
          // Access and organizations (issue 15): each gets the rows below like every tool.
          "set_author_access",
          "create_organization",
          "invite_organization_member",
          "accept_organization_invitation",
          "decline_organization_invitation",
          "remove_organization_member",
          "leave_organization",
        ]),
      );
      expect(tools.find((t) => t.name === "get_organization")?.scope).toBe("read");
    });

    // Every token holds read (contribute implies it, and a token needs a scope), so only
    // contribute tools can meet a token without their scope.
    it.each(contributeTools.map((t) => ({ name: t.name })))(
      "$name: a read-only token is a forbidden tool error naming the contribute scope",
      async ({ name }) => {
        const { body } = await modernRpc(app.url, readToken, "tools/call", { name, arguments: {} });
        const result = body.result as { content: Array<{ text: string }>; isError: boolean };
        expect(result.isError).toBe(true);
        expect(JSON.parse(result.content[0]!.text)).toMatchObject({
          error: {
            code: "forbidden",
            scope: "contribute",
            tool: name,
            message: expect.stringContaining("contribute"),
          },
        });
      },
    );
  });
});

describeWithDatabase("live roles and memberships behind the contribute scope", () => {
  const db = useTestDatabase();
  let app: RunningApp;
  let token: string;

  beforeAll(async () => {
    await addUser(db.sql, { handle: "contributor" });
    ({ token } = await issueToken(db.sql, "contributor", ["contribute"]));
    app = await startApp(testServices(db.sql));
  });
  afterAll(() => app?.close());

  // The scope lets the call through; the live role or membership then refuses it.
  it.each([
    { name: "set_author_access", arguments: { user: "contributor", access: "author" }, code: "forbidden" },
    {
      name: "invite_organization_member",
      arguments: { organization: "nobody-s", user: "contributor" },
      code: "not_found",
    },
    { name: "leave_organization", arguments: { organization: "nobody-s" }, code: "not_found" },
    { name: "get_organization", arguments: { organization: "nobody-s" }, code: "not_found" },
  ])("$name: a contribute token without the role or membership is refused with $code", async (call) => {
    const { body } = await modernRpc(app.url, token, "tools/call", {
      name: call.name,
      arguments: call.arguments,
    });
    const result = body.result as { content: Array<{ text: string }>; isError: boolean };
    expect(result.isError).toBe(true);
    expect(JSON.parse(result.content[0]!.text)).toMatchObject({ error: { code: call.code } });
  });
});

/**
 * The maintainers' and operators' tools (issue 19), one row each: what the implementation's or
 * protocol's owner, another user, an operator (an administrator made with `svc-server user add
 * --admin`, grantor null) and an administrator (granted the role by another administrator) get.
 * Every cell acts on a target of its own, since each tool writes once.
 */
describeWithDatabase("the authorization matrix of the maintainers' and operators' tools", () => {
  const db = useTestDatabase();
  let app: RunningApp;
  let sat: PublishedProblem;
  const people: Record<"owner" | "other" | "operator" | "administrator", { id: string; token: string }> =
    {} as never;
  let services: ReturnType<typeof testServices>;

  beforeAll(async () => {
    services = testServices(db.sql);
    const owner = await newAuthor(db.sql);
    const other = await addUser(db.sql, { handle: "other-user" });
    const operator = await addUser(db.sql, { handle: "operator", isAdmin: true });
    const administrator = await addUser(db.sql, { handle: "administrator" });
    await grantRole(db.sql, { userId: administrator.id, role: "administrator", grantedBy: operator.id });
    for (const [key, user] of [
      ["owner", owner.user],
      ["other", other],
      ["operator", operator],
      ["administrator", administrator],
    ] as const) {
      people[key] = { id: user.id, token: (await issueToken(db.sql, user.handle, ["contribute"])).token };
    }
    sat = await publishProblem(services, owner, "valid-builtin-sat");
    await passConformance(db.sql, sat.verifier_contract_id);
    app = await startApp(services);
  });
  afterAll(() => app?.close());

  /** A finished builtin run on the owner's Problem, submitted by `other`; its stage has a log. */
  async function finishedRun(): Promise<{ submission_id: string; verification_run_id: string }> {
    const solver = { user: { id: people.other.id } } as Parameters<typeof seedSubmission>[1];
    const seeded = await seedSubmission(services, solver, sat, [
      { role: "assignment", filename: "a.txt", media_type: "text/plain", content: "v 1 2 -3 0\n" },
    ]);
    await executeVerificationRun(services, seeded.verification_run_id);
    return seeded;
  }

  const rows: Array<{
    name: string;
    args: () => Promise<Record<string, unknown>>;
    expect: Record<keyof typeof people, "ok" | "forbidden" | "not_found">;
  }> = [
    {
      name: "yank_verifier_implementation",
      args: async () => ({
        verifier_implementation_id: await seedImplementation(db.sql, {
          contractId: sat.verifier_contract_id,
          stageKey: "sat_check",
          author: people.owner.id,
        }),
        reason_md: "broken",
      }),
      // The owner's Problem is private: another user cannot even name the implementation.
      expect: { owner: "ok", other: "not_found", operator: "ok", administrator: "ok" },
    },
    {
      name: "yank_review_protocol",
      args: async () => {
        const slug = `p-${Math.random().toString(36).slice(2, 8)}`;
        return {
          review_protocol_id: await seedProtocol(db.sql, people.owner.id, slug, { title: slug }),
          reason_md: "superseded",
        };
      },
      expect: { owner: "ok", other: "not_found", operator: "ok", administrator: "ok" },
    },
    {
      name: "revoke_implementation_runs",
      args: async () => {
        await finishedRun();
        return {
          verifier_implementation_id: sat.implementation_ids[0],
          reason_md: "does not match its contract",
        };
      },
      expect: { owner: "forbidden", other: "forbidden", operator: "ok", administrator: "ok" },
    },
    {
      name: "start_manual_verification",
      args: async () => ({ submission_id: (await finishedRun()).submission_id }),
      expect: { owner: "forbidden", other: "forbidden", operator: "ok", administrator: "ok" },
    },
    {
      name: "redact_stage_log",
      args: async () => ({
        verification_run_id: (await finishedRun()).verification_run_id,
        stage_key: "sat_check",
        reason: "personal_data",
      }),
      expect: { owner: "forbidden", other: "forbidden", operator: "ok", administrator: "ok" },
    },
  ];

  // Rows for the external-stage tools: attesting needs registration for the stage's system, which
  // no role gives (external-stages.test.ts covers the registered attester).
  rows.push(
    {
      name: "register_external_system",
      args: async () => ({
        system: `Lab ${Math.random().toString(36).slice(2, 8)}`,
        attestation_hours: 24,
        attesters: [],
      }),
      expect: { owner: "forbidden", other: "forbidden", operator: "ok", administrator: "ok" },
    },
    {
      name: "attest_external_stage",
      args: async () => ({
        verification_run_id: (await finishedRun()).verification_run_id,
        stage_key: "sat_check",
        result: "verified",
        reference: "REF-1",
      }),
      expect: { owner: "not_found", other: "not_found", operator: "not_found", administrator: "not_found" },
    },
  );

  it("has a row for every tool issue 19 added, each registered as a contribute tool", () => {
    for (const row of rows)
      expect(tools.find((t) => t.name === row.name)?.scope, row.name).toBe("contribute");
  });

  it.each(
    rows.flatMap((row) =>
      (["owner", "other", "operator", "administrator"] as const).map((who) => ({ ...row, who })),
    ),
  )("$name as $who", async ({ name, args, expect: outcomes, who }) => {
    const { body } = await modernRpc(app.url, people[who].token, "tools/call", {
      name,
      arguments: await args(),
    });
    const result = body.result as { content: Array<{ text: string }>; isError?: boolean };
    const envelope = JSON.parse(result.content[0]!.text);
    if (outcomes[who] === "ok") {
      expect(result.isError ?? false, JSON.stringify(envelope)).toBe(false);
    } else {
      expect(result.isError).toBe(true);
      expect(envelope).toMatchObject({ error: { code: outcomes[who] } });
    }
  });
});

describeWithDatabase("scope checks on tools no registry entry exercises yet", () => {
  const db = useTestDatabase();
  let app: RunningApp;
  let readToken: string;
  let contributeToken: string;
  const ran: string[] = [];
  const writes: Tool[] = (["write", "destructive"] as const).map((kind) =>
    defineTool({
      name: `test_${kind}`,
      title: `A ${kind} tool`,
      description: "Records that it ran.",
      scope: "contribute",
      kind,
      toolset: "solving",
      input: z.object({ note: z.string() }),
      run: async (_context, input) => {
        ran.push(input.note);
        return { done: true };
      },
    }),
  );

  beforeAll(async () => {
    await addUser(db.sql, { handle: "writer" });
    ({ token: readToken } = await issueToken(db.sql, "writer", ["read"]));
    ({ token: contributeToken } = await issueToken(db.sql, "writer", ["contribute"]));
    app = await startMcpApp({ services: testServices(db.sql), tools: writes, resourceTemplates: [] });
  });
  afterAll(() => app?.close());

  it.each(clientLines)(
    "refuses a read-only token before validating or running ($name)",
    async ({ connect }) => {
      const client = await connect(app.url, readToken);
      try {
        for (const tool of writes) {
          // No `note`: the scope is checked first, so the refusal is forbidden, not invalid_input.
          const result = await client.callTool(tool.name, {});
          expect(result.isError).toBe(true);
          expect(envelopeOf(result)).toMatchObject({
            error: { code: "forbidden", scope: "contribute", tool: tool.name },
          });
        }
        expect(ran).toEqual([]);
      } finally {
        await client.close();
      }
    },
  );

  it("runs the tool for a contribute token", async () => {
    const { body } = await modernRpc(app.url, contributeToken, "tools/call", {
      name: "test_write",
      arguments: { note: "hello" },
    });
    expect(body.result).toMatchObject({ structuredContent: { done: true } });
    expect(ran).toEqual(["hello"]);
  });

  it("marks write tools as writes and destructive ones as destructive", async () => {
    const { body } = await modernRpc(app.url, contributeToken, "tools/list");
    expect(body.result!.tools).toEqual([
      expect.objectContaining({
        name: "test_write",
        annotations: expect.objectContaining({ readOnlyHint: false, destructiveHint: false }),
      }),
      expect.objectContaining({
        name: "test_destructive",
        annotations: expect.objectContaining({ readOnlyHint: false, destructiveHint: true }),
      }),
    ]);
  });
});

describeWithDatabase("host names /mcp answers to", () => {
  const db = useTestDatabase();
  let app: RunningApp;
  const base = "https://svc.example.org";

  beforeAll(async () => {
    app = await startApp(testServices(db.sql, { baseUrl: base }));
  });
  afterAll(() => app?.close());

  it("answers the SVC_BASE_URL host and loopback, and refuses any other Host", async () => {
    for (const host of ["svc.example.org", "127.0.0.1", "localhost"]) {
      const { status } = await getWithHost(app.url, "/mcp", host);
      expect(status, host).toBe(401);
    }
    const { status } = await getWithHost(app.url, "/mcp", "rebound.example.net");
    expect(status).toBe(403);
  });

  it("names SVC_BASE_URL in the challenge and the metadata", async () => {
    const { headers } = await modernRpc(app.url, null, "tools/list");
    expect(headers.get("www-authenticate")).toBe(
      `Bearer resource_metadata="${base}/.well-known/oauth-protected-resource/mcp"`,
    );
    const metadata = await (await fetch(`${app.url}/.well-known/oauth-protected-resource/mcp`)).json();
    expect(metadata).toMatchObject({ resource: `${base}/mcp`, authorization_servers: [base] });
  });
});
