import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { authenticate } from "../../src/users/index.ts";
import { clientLines, envelopeOf, type TestClient } from "../edges/mcp/support/mcp-clients.ts";
import { type RunningApp, startApp } from "../edges/mcp/support/start-app.ts";
import { runOperatorCommand } from "../support/run-operator-command.ts";
import { type SeededUser, seedUser } from "../support/seed-records.ts";
import { describeWithDatabase, useTestDatabase } from "../support/test-database.ts";
import { testServices } from "../support/test-services.ts";

type Envelope = Record<string, any>;

/**
 * Access managed in the product (issue 15): set_author_access by a live administrator, the
 * operator's `svc-server user grant|revoke|show`, every grant recorded with grantor and time and
 * shown by whoami, and revocations applied on the next request whatever token the user holds.
 */
describeWithDatabase("access grants", () => {
  const db = useTestDatabase();
  let app: RunningApp;
  const clients: TestClient[] = [];
  const users: Record<string, SeededUser> = {};

  /** svc-server in process, on the test database, as an operator runs it. */
  async function operator(...argv: string[]): Promise<{ code: number; out: Envelope | null; err: string }> {
    const { code, stdout, stderr } = await runOperatorCommand(argv, { DATABASE_URL: db.url });
    return { code, out: stdout ? JSON.parse(stdout) : null, err: stderr };
  }

  beforeAll(async () => {
    app = await startApp(testServices(db.sql));
    users.root = await seedUser(db.sql, "root-admin", { admin: true });
    users.writer = await seedUser(db.sql, "writer");
    users.plain = await seedUser(db.sql, "plain");
  }, 60_000);

  afterAll(async () => {
    for (const client of clients) await client.close();
    await app?.close();
  });

  async function connect(token: string): Promise<TestClient> {
    const client = await clientLines[0].connect(app.url, token);
    clients.push(client);
    return client;
  }

  async function call(
    client: TestClient,
    name: string,
    args: Record<string, unknown> = {},
  ): Promise<Envelope> {
    const result = await client.callTool(name, args);
    return { ...(envelopeOf(result) as Envelope), isError: result.isError === true };
  }

  describe("set_author_access", () => {
    it("grants author, then trusted author, recording the administrator and the time, shown by whoami", async () => {
      const admin = await connect(users.root!.token);
      const granted = await call(admin, "set_author_access", { user: "writer", access: "author" });
      expect(granted).toMatchObject({
        isError: false,
        user: { id: users.writer!.id, handle: "writer" },
        access: "author",
        changed: true,
        grants: [
          {
            access: "author",
            granted_by: users.root!.id,
            granted_by_handle: "root-admin",
            granted_at: expect.any(String),
            revoked_by: null,
            revoked_at: null,
          },
        ],
      });
      expect(await call(admin, "set_author_access", { user: "writer", access: "author" })).toMatchObject({
        changed: false,
      });
      const trusted = await call(admin, "set_author_access", {
        user: users.writer!.id,
        access: "trusted_author",
      });
      expect(trusted.grants.map((g: Envelope) => g.access)).toEqual(["author", "trusted_author"]);
      const writer = await connect(users.writer!.token);
      const shown = await call(writer, "whoami");
      expect(shown).toMatchObject({
        work_role: "trusted_author",
        roles: ["contributor", "author", "trusted_author"],
        grants: trusted.grants,
      });
      // The token was issued before the grant: it carries no capability the user lacked then.
      expect(shown.capabilities).toEqual([]);
    });

    it("revokes down to none; the grants stay with their revoker and time", async () => {
      const admin = await connect(users.root!.token);
      const revoked = await call(admin, "set_author_access", { user: "writer", access: "none" });
      expect(revoked.changed).toBe(true);
      expect(revoked.grants).toEqual([
        expect.objectContaining({
          access: "author",
          revoked_by: users.root!.id,
          revoked_by_handle: "root-admin",
        }),
        expect.objectContaining({
          access: "trusted_author",
          revoked_by: users.root!.id,
          revoked_at: expect.any(String),
        }),
      ]);
      expect(await call(await connect(users.writer!.token), "whoami")).toMatchObject({
        work_role: "contributor",
        roles: ["contributor"],
      });
    });

    it("refuses a caller who is not an administrator, an unknown handle and an unknown access", async () => {
      const plain = await connect(users.plain!.token);
      expect(await call(plain, "set_author_access", { user: "writer", access: "author" })).toMatchObject({
        isError: true,
        error: { code: "forbidden", role: "administrator" },
      });
      const admin = await connect(users.root!.token);
      expect(
        await call(admin, "set_author_access", { user: "nobody-at-all", access: "author" }),
      ).toMatchObject({
        isError: true,
        error: { code: "not_found", field: "user" },
      });
      expect(
        await call(admin, "set_author_access", { user: "writer", access: "administrator" }),
      ).toMatchObject({
        isError: true,
        error: { code: "invalid_input" },
      });
    });
  });

  describe("operator commands", () => {
    it("grants and revokes capabilities and roles with a null grantor, and shows them", async () => {
      await operator("user", "add", "ops-user", "--capability", "custom_verifier");
      expect(await operator("user", "grant", "ops-user", "author")).toMatchObject({
        code: 0,
        out: { access: "author", granted_by: null, granted_at: expect.any(String) },
      });
      expect((await operator("user", "grant", "ops-user", "administrator")).code).toBe(0);
      expect(await operator("user", "revoke", "ops-user", "author")).toMatchObject({
        code: 0,
        out: { access: "author", revoked_by: null, revoked_at: expect.any(String) },
      });
      const shown = await operator("user", "show", "ops-user");
      expect(shown.out).toMatchObject({
        roles: ["contributor", "administrator"],
        capabilities: ["custom_verifier"],
        grants: [
          expect.objectContaining({ access: "custom_verifier", granted_by: null, revoked_at: null }),
          expect.objectContaining({
            access: "author",
            granted_by: null,
            revoked_by: null,
            revoked_at: expect.any(String),
          }),
          expect.objectContaining({ access: "administrator", granted_by: null, revoked_at: null }),
        ],
      });
    });

    it("refuses an unknown access (usage, exit 2), an unknown handle and revoking what is not held (exit 1)", async () => {
      expect((await operator("user", "grant", "ops-user", "root")).code).toBe(2);
      const unknown = await operator("user", "grant", "nobody-at-all", "author");
      expect(unknown.code).toBe(1);
      expect(JSON.parse(unknown.err)).toMatchObject({ error: { code: "not_found" } });
      const notHeld = await operator("user", "revoke", "ops-user", "trusted_author");
      expect(JSON.parse(notHeld.err)).toMatchObject({ error: { code: "not_found" } });
      // trusted author is a role now: --capability refuses it, --trusted-author grants it.
      expect((await operator("user", "add", "old-style", "--capability", "trusted_author")).code).toBe(2);
      expect((await operator("user", "add", "new-style", "--trusted-author")).code).toBe(0);
      expect((await operator("user", "show", "new-style")).out).toMatchObject({
        roles: ["contributor", "author", "trusted_author"],
      });
    });
  });

  describe("a revocation applies on the next request, whatever token the user holds", () => {
    it("takes a capability from an already-issued token", async () => {
      const user = await seedUser(db.sql, "token-holder", { capabilities: ["author", "custom_verifier"] });
      const client = await connect(user.token);
      expect((await call(client, "whoami")).capabilities).toEqual(["author", "custom_verifier"]);
      expect((await operator("user", "revoke", "token-holder", "custom_verifier")).code).toBe(0);
      expect((await authenticate(db.sql, user.token))!.capabilities).toEqual(["author"]);
      expect((await call(client, "whoami")).capabilities).toEqual(["author"]);
    });

    it("takes the administrator role from an already-issued token", async () => {
      const admin = await seedUser(db.sql, "short-lived-admin", { admin: true });
      const client = await connect(admin.token);
      expect(await call(client, "set_author_access", { user: "plain", access: "author" })).toMatchObject({
        isError: false,
        grants: [expect.objectContaining({ granted_by_handle: "short-lived-admin" })],
      });
      expect((await operator("user", "revoke", "short-lived-admin", "administrator")).code).toBe(0);
      expect((await authenticate(db.sql, admin.token))!.user.is_admin).toBe(false);
      expect(await call(client, "set_author_access", { user: "plain", access: "none" })).toMatchObject({
        isError: true,
        error: { code: "forbidden" },
      });
      expect((await call(client, "whoami")).grants).toEqual([
        expect.objectContaining({
          access: "administrator",
          granted_by: null,
          revoked_by: null,
          revoked_at: expect.any(String),
        }),
      ]);
    });
  });
});
