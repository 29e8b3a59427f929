import { expect, it } from "vitest";
import { oauthAdapter } from "../../src/oauth/oauth-adapter.ts";
import { purgeExpiredOAuthState } from "../../src/oauth/purge-expired-oauth-state.ts";
import { describeWithDatabase, useTestDatabase } from "../support/test-database.ts";

describeWithDatabase("purgeExpiredOAuthState", () => {
  const db = useTestDatabase();

  it("deletes expired codes and tokens and keeps live ones", async () => {
    const codes = oauthAdapter(db.sql, "AuthorizationCode");
    await codes.upsert("live-code", { jti: "live-code", grantId: "g1" }, 60);
    await codes.upsert("old-code", { jti: "old-code", grantId: "g1" }, 60);
    await db.sql`update oauth_models set expires_at = now() - interval '1 second' where payload ->> 'grantId' = 'g1'
      and id_hash = encode(sha256(convert_to('old-code', 'UTF8')), 'hex')`;
    expect(await purgeExpiredOAuthState(db.sql)).toEqual({ models: 1, cliLogins: 0 });
    expect(await codes.find("live-code")).toMatchObject({ jti: "live-code", grantId: "g1" });
    expect(await codes.find("old-code")).toBeUndefined();
  });

  it("stores a code without its id and gives it back, with consumption", async () => {
    const codes = oauthAdapter(db.sql, "AuthorizationCode");
    await codes.upsert("secret-code-value", { jti: "secret-code-value", accountId: "usr_x" }, 60);
    const [row] = await db.sql<
      { payload: unknown }[]
    >`select payload from oauth_models where account_id = 'usr_x'`;
    expect(JSON.stringify(row!.payload)).not.toContain("secret-code-value");
    await codes.consume("secret-code-value");
    expect(await codes.find("secret-code-value")).toMatchObject({
      jti: "secret-code-value",
      consumed: expect.any(Number),
    });
  });

  it("deletes a registered client that holds no grant a week after registering", async () => {
    const clients = oauthAdapter(db.sql, "Client");
    const grants = oauthAdapter(db.sql, "Grant");
    await clients.upsert("unused", { client_id: "unused" }, 0);
    await clients.upsert("used", { client_id: "used" }, 0);
    await grants.upsert("g-used", { jti: "g-used", clientId: "used", accountId: "usr_y" }, 3600);
    await db.sql`update oauth_models set created_at = now() - interval '8 days' where kind = 'Client'`;
    expect((await purgeExpiredOAuthState(db.sql)).models).toBe(1);
    expect(await clients.find("unused")).toBeUndefined();
    expect(await clients.find("used")).toMatchObject({ client_id: "used" });
  });
});
