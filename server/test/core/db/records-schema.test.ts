import { createHash } from "node:crypto";
import { expect, it } from "vitest";
import { describeWithDatabase, useTestDatabase } from "../../support/test-database.ts";

/**
 * What migration 002 enforces in the database itself, whatever the code above it does:
 * revisions are permanent and numbered in sequence, content-addressed records never change,
 * yanks and archives are write-once, the audit history is append-only.
 */
const hash = (text: string) => `sha256:${createHash("sha256").update(text).digest("hex")}`;

describeWithDatabase("schema 002 (records)", () => {
  const db = useTestDatabase();

  async function problem(suffix: string): Promise<string> {
    const user = `usr_records${suffix}`;
    const id = `prb_records${suffix}`;
    await db.sql`insert into users (id, handle) values (${user}, ${`records-${suffix}`})`;
    await db.sql`
      insert into problems (id, slug, owner_user_id, structure, title, summary)
      values (${id}, ${`problem-${suffix}`}, ${user}, 'SOLVE', 'A title', 'A summary')`;
    return id;
  }

  async function revision(problemId: string, suffix: string, number: number): Promise<void> {
    await db.sql`
      insert into problem_revisions (id, problem_id, revision_number, statement_md, created_by_user_id, changelog_md)
      select ${`prv_records${suffix}${number}`}, ${problemId}, ${number}, 'Do it.', owner_user_id,
        ${number === 1 ? null : "changed"}
      from problems where id = ${problemId}`;
  }

  it("numbers revisions in sequence and never edits or deletes one", async () => {
    const id = await problem("0001");
    await expect(revision(id, "0001", 2)).rejects.toThrow(/out of sequence \(latest is 0\)/);
    await revision(id, "0001", 1);
    await expect(revision(id, "0001", 1)).rejects.toThrow();
    await revision(id, "0001", 2);
    await expect(
      db.sql`update problem_revisions set statement_md = 'edited' where id = 'prv_records00011'`,
    ).rejects.toThrow(/problem_revisions is append-only/);
    await expect(db.sql`delete from problem_revisions where id = 'prv_records00012'`).rejects.toThrow(
      /never deleted/,
    );
    const rows =
      await db.sql`select revision_number from problem_revisions where problem_id = ${id} order by 1`;
    expect(rows.map((r) => r.revision_number)).toEqual([1, 2]);
  });

  it("refuses a changelog on revision 1 and a current revision that does not exist", async () => {
    const id = await problem("0002");
    await expect(
      db.sql`
        insert into problem_revisions (id, problem_id, revision_number, statement_md, created_by_user_id, changelog_md)
        values ('prv_records00021', ${id}, 1, 'Do it.', 'usr_records0002', 'first')`,
    ).rejects.toThrow(/problem_revisions_changelog/);
    await expect(
      db.sql`update problems set current_revision_id = 'prv_missing00000' where id = ${id}`,
    ).rejects.toThrow(/problems_current_revision/);
  });

  it("keeps a problem's slug, owner and structure, and archives it once", async () => {
    const id = await problem("0003");
    await expect(db.sql`update problems set structure = 'BENCHMARK' where id = ${id}`).rejects.toThrow(
      /problems.structure never changes/,
    );
    await expect(db.sql`update problems set slug = 'renamed' where id = ${id}`).rejects.toThrow(
      /problems.slug never changes/,
    );
    await db.sql`update problems set title = 'A new title' where id = ${id}`;
    await db.sql`update problems set status = 'archived', archived_at = now() where id = ${id}`;
    await expect(
      db.sql`update problems set status = 'open', archived_at = null where id = ${id}`,
    ).rejects.toThrow(/write-once/);
    await expect(db.sql`delete from problems where id = ${id}`).rejects.toThrow(/never deleted/);
  });

  it("keeps content-addressed documents unchanged and yanks them once", async () => {
    await db.sql`insert into users (id, handle) values ('usr_records0004', 'records-0004')`;
    await db.sql`
      insert into review_protocols (id, slug, publisher_user_id, content_hash, document)
      values ('rpt_records0004', 'review', 'usr_records0004', ${hash("doc")}, '{"version": "svc.review/v0.1"}')`;
    await expect(
      db.sql`
        insert into review_protocols (id, slug, publisher_user_id, content_hash, document)
        values ('rpt_records0005', 'review-2', 'usr_records0004', ${hash("doc")}, '{}')`,
    ).rejects.toThrow(/review_protocols_publisher_user_id_content_hash_key/);
    await expect(
      db.sql`update review_protocols set document = '{}' where id = 'rpt_records0004'`,
    ).rejects.toThrow(/review_protocols.document never changes/);
    await db.sql`update review_protocols set slug = 'renamed' where id = 'rpt_records0004'`;
    await db.sql`update review_protocols set yanked_at = now() where id = 'rpt_records0004'`;
    await expect(
      db.sql`update review_protocols set yanked_at = null where id = 'rpt_records0004'`,
    ).rejects.toThrow(/yanked_at is write-once/);
  });

  it("numbers implementations per contract stage and keeps them immutable", async () => {
    await db.sql`insert into users (id, handle) values ('usr_records0006', 'records-0006')`;
    await db.sql`
      insert into verifier_contracts (id, publisher_user_id, content_hash, document)
      values ('vct_records0006', 'usr_records0006', ${hash("contract")}, '{}')`;
    const implementation = (id: string, version: number, content: string) => db.sql`
      insert into verifier_implementations
        (id, verifier_contract_id, stage_key, version_number, runtime, entrypoint, limits, content_hash, created_by_user_id)
      values (${id}, 'vct_records0006', 'check', ${version}, '{}', '[]', '{}', ${hash(content)}, 'usr_records0006')`;
    await implementation("vfi_records0006", 1, "one");
    await expect(implementation("vfi_records0007", 1, "two")).rejects.toThrow(/duplicate key/);
    await expect(implementation("vfi_records0007", 2, "one")).rejects.toThrow(/duplicate key/);
    await implementation("vfi_records0007", 2, "two");
    await expect(
      db.sql`update verifier_implementations set limits = '{"vcpu": 2}' where id = 'vfi_records0006'`,
    ).rejects.toThrow(/verifier_implementations.limits never changes/);
    // Conformance is the one mutable field: the verification work records its outcome.
    await db.sql`update verifier_implementations set conformance = '{"status": "passed"}' where id = 'vfi_records0006'`;
  });

  it("keeps the work audit append-only and a published upload's result write-once", async () => {
    await db.sql`insert into users (id, handle) values ('usr_records0008', 'records-0008')`;
    await db.sql`
      insert into work_audit (actor_user_id, action, subject_kind, subject_id)
      values ('usr_records0008', 'create', 'problem', 'prb_records0008')`;
    await expect(db.sql`update work_audit set action = 'noop'`).rejects.toThrow(/append-only/);
    await expect(db.sql`delete from work_audit`).rejects.toThrow(/append-only/);

    await db.sql`
      insert into authoring_uploads (id, user_id, size_bytes, content_hash, expires_at)
      values ('aup_records0008', 'usr_records0008', 10, ${hash("zip")}, now() + interval '15 minutes')`;
    await db.sql`
      update authoring_uploads set state = 'published', published_at = now(), publish_result = '{"counts": {}}'
      where id = 'aup_records0008'`;
    await expect(
      db.sql`update authoring_uploads set publish_result = '{}' where id = 'aup_records0008'`,
    ).rejects.toThrow(/publish_result is write-once/);
    await expect(
      db.sql`update authoring_uploads set content_hash = ${hash("other")} where id = 'aup_records0008'`,
    ).rejects.toThrow(/content_hash never changes/);
  });
});
