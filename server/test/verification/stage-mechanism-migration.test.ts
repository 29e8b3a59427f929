import { expect, it } from "vitest";
import { readMigrations } from "../../src/core/db/read-migrations.ts";
import { startReviewProcess } from "../../src/reviews/start-review-process.ts";
import { fixtureNode, fixtureProtocol } from "../reviews/surface/support/review-fixture.ts";
import {
  contractDocument,
  seedContract,
  seedFinishedRun,
  seedProblem,
  seedProtocol,
  seedUser,
} from "../support/seed-records.ts";
import { describeWithDatabase, useTestDatabase } from "../support/test-database.ts";
import { testServices } from "../support/test-services.ts";

const NOTHING = { sandbox: null, review: null, external: null };

/**
 * Migration 028 corrects stage rows written before a mechanism was stored only once fixed: a
 * review stage gets its process's mechanism, a stage that ran nothing loses its all-null one
 * (finished rows included, their write-once guard restored after), and it may run again.
 */
describeWithDatabase("migration 028: stage mechanisms only when fixed", () => {
  const db = useTestDatabase();

  it("fills review stages from their process, clears all-null mechanisms, keeps real ones, and guards again", async () => {
    const services = testServices(db.sql);
    const owner = await seedUser(db.sql, "migration-owner");
    const contractId = await seedContract(db.sql, owner.id, contractDocument());
    const problem = await seedProblem(services, {
      owner: owner.id,
      slug: "migrated",
      revision: { statement: "Old rows.", verifierContractId: contractId },
    });
    const runId = await seedFinishedRun(db.sql, {
      problemId: problem.problemId,
      revisionId: problem.revisionId,
      contractId,
      userId: owner.id,
      result: "inconclusive",
    });
    const protocolId = await seedProtocol(
      db.sql,
      owner.id,
      "migrated-protocol",
      fixtureProtocol([fixtureNode("readers")]),
    );
    const [submission] = await db.sql<{ submission_id: string }[]>`
      select submission_id from verification_runs where id = ${runId}`;
    const processId = await startReviewProcess(db.sql, new Date(), {
      review_protocol_id: protocolId,
      subject_kind: "submission",
      subject_id: submission!.submission_id,
      subject_user_id: owner.id,
      subject_organization_id: null,
      problem_id: problem.problemId,
      problem_revision_id: problem.revisionId,
      campaign_id: null,
      verification_run_id: runId,
      stage_key: "readers",
    });
    const sandbox = {
      verifier_implementation_id: "vfi_0000000000",
      implementation_content_hash: `sha256:${"a".repeat(64)}`,
      runtime_image_digest: `sha256:${"b".repeat(64)}`,
      backend: "builtin",
      exit_code: null,
      duration_ms: null,
      evidence_hash: null,
    };
    await db.sql`
      insert into verification_stage_results (verification_run_id, position, stage_key, kind, status, result,
        evidence_md, mechanism, started_at, finished_at)
      values
        (${runId}, 0, 'check', 'sandbox', 'finished', 'verified', 'ran', ${db.sql.json({ ...NOTHING, sandbox })}, now(), now()),
        (${runId}, 1, 'readers', 'review', 'running', null, '', null, now(), null),
        (${runId}, 2, 'partner', 'external', 'finished', 'inconclusive', 'never attested', ${db.sql.json(NOTHING)}, now(), now())`;

    const migration = readMigrations().find((m) => m.name === "028_stage_mechanisms_only_when_fixed")!;
    await db.sql.unsafe(migration.sql);
    await db.sql.unsafe(migration.sql);

    const rows = await db.sql<{ stage_key: string; mechanism: unknown }[]>`
      select stage_key, mechanism from verification_stage_results where verification_run_id = ${runId} order by position`;
    const [protocol] = await db.sql<{ content_hash: string }[]>`
      select content_hash from review_protocols where id = ${protocolId}`;
    expect(rows).toEqual([
      { stage_key: "check", mechanism: { ...NOTHING, sandbox } },
      {
        stage_key: "readers",
        mechanism: {
          ...NOTHING,
          review: {
            review_process_id: processId,
            protocol_hash: protocol!.content_hash,
            review_protocol_id: protocolId,
          },
        },
      },
      { stage_key: "partner", mechanism: null },
    ]);
    // The write-once guard on finished stages is back.
    await expect(
      db.sql`update verification_stage_results set mechanism = null where verification_run_id = ${runId} and position = 0`,
    ).rejects.toThrow(/write-once/);
  });
});
