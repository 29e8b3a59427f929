import { afterAll, beforeAll, expect, it } from "vitest";
import { randomId } from "../../../src/core/ids/random-id.ts";
import {
  addUser,
  grantCapability,
  grantRole,
  issueToken,
  revokeCapability,
  setAdministrator,
} from "../../../src/users/index.ts";
import { describeWithDatabase, useTestDatabase } from "../../support/test-database.ts";
import { testServices } from "../../support/test-services.ts";
import { clientLines, envelopeOf, type TestClient } from "./support/mcp-clients.ts";
import { type RunningApp, startApp } from "./support/start-app.ts";

describeWithDatabase("whoami", () => {
  const db = useTestDatabase();
  let app: RunningApp;
  const clients: TestClient[] = [];

  async function whoamiAs(token: string): Promise<Record<string, unknown>> {
    const client = await clientLines[0].connect(app.url, token);
    clients.push(client);
    return envelopeOf(await client.callTool("whoami"));
  }

  beforeAll(async () => {
    app = await startApp(testServices(db.sql));
  });
  afterAll(async () => {
    for (const client of clients) await client.close();
    await app?.close();
  });

  it("reports the user and their memberships, oldest first", async () => {
    const user = await addUser(db.sql, { handle: "member" });
    for (const [slug, name, role, joined] of [
      ["later-org", "Later Org", "member", "2026-02-01T00:00:00Z"],
      ["first-org", "First Org", "owner", "2026-01-01T00:00:00Z"],
    ] as const) {
      const id = randomId("org");
      await db.sql`insert into organizations (id, slug, name) values (${id}, ${slug}, ${name})`;
      await db.sql`insert into memberships (organization_id, user_id, role, joined_at)
        values (${id}, ${user.id}, ${role}, ${joined})`;
    }
    const { token } = await issueToken(db.sql, "member", ["read"]);
    expect(await whoamiAs(token)).toEqual({
      user: { id: user.id, handle: "member", created_at: user.created_at.toISOString() },
      memberships: [
        {
          organization_slug: "first-org",
          organization_name: "First Org",
          role: "owner",
          joined_at: "2026-01-01T00:00:00.000Z",
        },
        {
          organization_slug: "later-org",
          organization_name: "Later Org",
          role: "member",
          joined_at: "2026-02-01T00:00:00.000Z",
        },
      ],
      invitations: [],
      work_role: "contributor",
      roles: ["contributor"],
      scopes: ["read"],
      capabilities: [],
      grants: [],
    });
  });

  it("reports the highest live role: author, trusted author, administrator", async () => {
    const user = await addUser(db.sql, { handle: "climber" });
    await grantCapability(db.sql, { userId: user.id, capability: "author" });
    const { token } = await issueToken(db.sql, "climber", ["read", "contribute"]);
    expect(await whoamiAs(token)).toMatchObject({ work_role: "author", capabilities: ["author"] });
    // 1. Roles are live: the same token reports the new role.
    await grantRole(db.sql, { userId: user.id, role: "trusted_author" });
    expect(await whoamiAs(token)).toMatchObject({ work_role: "trusted_author" });
    await setAdministrator(db.sql, user.id, true);
    expect(await whoamiAs(token)).toMatchObject({
      work_role: "administrator",
      scopes: ["read", "contribute"],
    });
  });

  it("no longer reports a capability revoked after the token was issued", async () => {
    const user = await addUser(db.sql, { handle: "revokee" });
    await grantCapability(db.sql, { userId: user.id, capability: "custom_verifier" });
    const { token } = await issueToken(db.sql, "revokee", ["read"]);
    expect(await whoamiAs(token)).toMatchObject({ capabilities: ["custom_verifier"] });
    await revokeCapability(db.sql, { userId: user.id, capability: "custom_verifier" });
    expect(await whoamiAs(token)).toMatchObject({ capabilities: [], work_role: "contributor" });
  });
});
