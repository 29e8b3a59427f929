import postgres from "postgres";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { Pool } from "../../src/core/db/connect-sql.ts";
import {
  addUser,
  grantCapability,
  issueToken,
  revokeCapability,
  revokeToken,
} from "../../src/users/index.ts";
import { legacyRpc } from "../edges/mcp/support/json-rpc.ts";
import { type RunningApp, startApp } from "../edges/mcp/support/start-app.ts";
import { describeWithDatabase, useTestDatabase } from "../support/test-database.ts";
import { testServices } from "../support/test-services.ts";

/** How soon a revocation on one replica is refused on another (issue 36). */
const REVOCATION_BOUND_MS = 100;

/**
 * Two replicas over one database, each with its own pool and so its own principal cache: the
 * deployment of docs/operations.md. Replica B's pool counts the statements it sends.
 */
describeWithDatabase("bearer tokens verified from a cache that a revocation empties on every replica", () => {
  const db = useTestDatabase();
  let a: RunningApp;
  let b: RunningApp;
  let poolB: Pool;
  const statementsB: string[] = [];

  beforeAll(async () => {
    poolB = postgres(db.url, {
      max: 4,
      onnotice: () => {},
      debug: (_connection, query) => statementsB.push(query),
    });
    a = await startApp(testServices(db.sql));
    b = await startApp(testServices(poolB));
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await poolB?.end({ timeout: 5 });
  });

  /** tools/list on a replica: 200 with the list, or the 401 of a refused token. */
  const status = async (app: RunningApp, token: string) =>
    (await legacyRpc(app.url, token, "tools/list")).status;

  it("verifies a known token without a statement", async () => {
    await addUser(db.sql, { handle: "cached" });
    const { token } = await issueToken(db.sql, "cached", ["read"]);
    const lookups = () => statementsB.filter((query) => /api_tokens|oauth_models/.test(query));
    // The cache serves once its LISTEN stands (started by the first lookup on the pool).
    for (let tries = 0; tries < 100; tries++) {
      statementsB.length = 0;
      expect(await status(b, token)).toBe(200);
      if (lookups().length === 0) break;
    }
    statementsB.length = 0;
    for (let i = 0; i < 20; i++) expect(await status(b, token)).toBe(200);
    expect(lookups()).toEqual([]);
  });

  it("refuses a token revoked on replica A on replica B within 100 ms", async () => {
    await addUser(db.sql, { handle: "revoked-elsewhere" });
    const { token, prefix } = await issueToken(db.sql, "revoked-elsewhere", ["read"]);
    expect(await status(b, token)).toBe(200);
    expect(await status(b, token)).toBe(200);
    // Replica A's pool revokes it, as `svc-server token revoke` or the settings page would.
    await revokeToken(db.sql, prefix);
    const revokedAt = performance.now();
    let refusedAfter = Number.POSITIVE_INFINITY;
    while (performance.now() - revokedAt < 1000) {
      if ((await status(b, token)) === 401) {
        refusedAfter = performance.now() - revokedAt;
        break;
      }
    }
    console.log(`revoked on A, refused on B after ${refusedAfter.toFixed(1)} ms`);
    expect(refusedAfter).toBeLessThan(REVOCATION_BOUND_MS);
    expect(await status(a, token)).toBe(401);
  });

  it("drops a capability revoked on replica A from replica B's cached principal", async () => {
    const user = await addUser(db.sql, { handle: "capable" });
    await grantCapability(db.sql, { userId: user.id, capability: "author" });
    const { token } = await issueToken(db.sql, "capable", ["read", "author"]);
    const whoami = async () =>
      (await legacyRpc(b.url, token, "tools/call", { name: "whoami", arguments: {} })).body.result as {
        structuredContent: { capabilities: string[] };
      };
    expect((await whoami()).structuredContent.capabilities).toEqual(["author"]);
    await revokeCapability(db.sql, { userId: user.id, capability: "author" });
    const deadline = performance.now() + 1000;
    let capabilities = ["author"];
    while (capabilities.length > 0 && performance.now() < deadline) {
      capabilities = (await whoami()).structuredContent.capabilities;
    }
    expect(capabilities).toEqual([]);
  });
});
