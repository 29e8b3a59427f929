import { expect, it } from "vitest";
import { describeWithDatabase, useTestDatabase } from "../../support/test-database.ts";

/**
 * Migration 023: the row guards (immutable columns, write-once columns, forward-only status, the
 * stage log's redaction) fire only when a value they guard changes, so an update that leaves those
 * values alone never calls PL/pgSQL. What they refuse is tested with each record's schema.
 */
describeWithDatabase("row guards", () => {
  const db = useTestDatabase();

  it("gives every row guard trigger a WHEN clause naming the columns it guards", async () => {
    const guards = await db.sql<{ tgname: string; definition: string; args: string[] }[]>`
      select tg.tgname, pg_get_triggerdef(tg.oid) as definition,
        array_remove(string_to_array(encode(tg.tgargs, 'escape'), '\\000'), '') as args
      from pg_trigger tg join pg_proc p on p.oid = tg.tgfoid
      where not tg.tgisinternal
        and p.proname in ('svc_immutable_columns', 'svc_write_once', 'svc_forward_status', 'svc_stage_log_redaction')
      order by tg.tgname`;
    expect(guards.length).toBeGreaterThan(50);
    const unguarded = guards.filter(
      (guard) =>
        !/ FOR EACH ROW WHEN \(/.test(guard.definition) ||
        guard.args.some(
          // A keyword such as "position" is quoted in the definition.
          (column) => !new RegExp(`\\bold\\.${column}\\b`).test(guard.definition.replaceAll('"', "")),
        ),
    );
    expect(unguarded.map((guard) => guard.tgname)).toEqual([]);
  });

  it("still refuses a guarded change and lets an unguarded one through", async () => {
    await db.sql`insert into users (id, handle) values ('usr_guardsguardsguards0', 'guards')`;
    await db.sql`
      insert into api_tokens (id, user_id, prefix, token_hash, scopes)
      values ('tok_guardsguardsguards0', 'usr_guardsguardsguards0', 'svc_guards00',
        'sha256:0000000000000000000000000000000000000000000000000000000000000000', ${["read"]})`;
    await db.sql`update api_tokens set last_used_at = now() where id = 'tok_guardsguardsguards0'`;
    await expect(
      db.sql`update api_tokens set scopes = ${["read", "contribute"]} where id = 'tok_guardsguardsguards0'`,
    ).rejects.toThrow(/never changes once written/);
    await db.sql`update api_tokens set revoked_at = now() where id = 'tok_guardsguardsguards0'`;
    await expect(
      db.sql`update api_tokens set revoked_at = now() + interval '1 day' where id = 'tok_guardsguardsguards0'`,
    ).rejects.toThrow(/write-once/);
  });

  it("calls the forward-only status guards only for a move backwards (025)", async () => {
    const triggers = await db.sql<{ definition: string }[]>`
      select pg_get_triggerdef(tg.oid) as definition
      from pg_trigger tg join pg_proc p on p.oid = tg.tgfoid
      where not tg.tgisinternal and p.proname = 'svc_forward_status'`;
    expect(triggers.length).toBeGreaterThanOrEqual(2);
    for (const { definition } of triggers) expect(definition).toMatch(/WHEN \(\(array_position\(/);

    // What they refuse: execute-verification-run.test.ts, "the database keeps the record's rules".
  });
});
