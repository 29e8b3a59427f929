import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { checkSchema } from "@svc/schemas";
import { beforeAll, expect, it } from "vitest";
import type { Services } from "../../../src/core/services/services.ts";
import { humanAge } from "../../../src/edges/cli/stuck-work-table.ts";
import { listStuckWork } from "../../../src/operations/list-stuck-work.ts";
import type { Principal } from "../../../src/users/principal.ts";
import { executeVerificationRun } from "../../../src/verification/execute-verification-run.ts";
import { getVerification } from "../../../src/verification/get-verification.ts";
import { newAuthor, newUser } from "../../authoring/support/authoring-harness.ts";
import { type OperatorRun, runOperatorCommand } from "../../support/run-operator-command.ts";
import { seedImplementation } from "../../support/seed-records.ts";
import { describeWithDatabase, useTestDatabase } from "../../support/test-database.ts";
import { testServices } from "../../support/test-services.ts";
import {
  type PublishedProblem,
  passConformance,
  publishProblem,
  seedSubmission,
} from "../../verification/support/verification-harness.ts";

/**
 * The operator tools from the shell (`svc-server redact-log`, `implementation revoke-runs` and
 * `yank`, `rerun`, `external-system remove-attester`, `stuck`), run in process against a test
 * database and blob directory: each does what its MCP tool does, recorded with a null actor, and
 * bad arguments exit 2 naming the argument.
 */
describeWithDatabase("operator work commands", () => {
  const db = useTestDatabase();
  const blobDir = mkdtempSync(join(tmpdir(), "svc-operator-blobs-"));
  let services: Services;
  let author: Principal;
  let solver: Principal;
  let sat: PublishedProblem;

  beforeAll(async () => {
    services = testServices(db.sql, { blobDir });
    author = await newAuthor(db.sql);
    solver = await newUser(db.sql);
    sat = await publishProblem(services, author, "valid-builtin-sat");
    await passConformance(db.sql, sat.verifier_contract_id);
  });

  function svcServer(...argv: string[]): Promise<OperatorRun> {
    return runOperatorCommand(argv, { DATABASE_URL: db.url, SVC_BLOB_DIR: blobDir });
  }

  const assignment = (text: string) => [
    { role: "assignment", filename: "a.txt", media_type: "text/plain", content: text },
  ];
  async function finishedRun() {
    const seeded = await seedSubmission(services, solver, sat, assignment("v 1 2 -3 0\n"));
    await executeVerificationRun(services, seeded.verification_run_id);
    return seeded;
  }
  const administrator = () => ({ userId: author.user.id, isAdministrator: true });

  it("rerun starts a manual run of a Submission, requested by no user (an operator)", async () => {
    const { submission_id } = await finishedRun();
    const rerun = await svcServer("rerun", submission_id);
    expect(rerun.code).toBe(0);
    const printed = JSON.parse(rerun.stdout);
    expect(printed).toMatchObject({ submission_id, trigger: "manual" });
    const [run] = await db.sql`
      select trigger, status, requested_by_user_id from verification_runs where id = ${printed.verification_run_id}`;
    expect(run).toEqual({ trigger: "manual", status: "queued", requested_by_user_id: null });
  });

  it("rerun refuses a malformed id as usage (2) and an unknown Submission as not_found (1)", async () => {
    const malformed = await svcServer("rerun", "nope");
    expect(malformed.code).toBe(2);
    expect(malformed.stderr).toContain("submission-id");
    expect(malformed.stderr).toContain("must be a Submission id");
    const unknown = await svcServer("rerun", "sub_0000000000");
    expect(unknown.code).toBe(1);
    expect(JSON.parse(unknown.stderr.trim().split("\n").at(-1)!)).toMatchObject({
      error: { code: "not_found" },
    });
  });

  it("redact-log replaces a stage log's bytes once, recorded with redacted_by_user_id null", async () => {
    const { verification_run_id } = await finishedRun();
    const secret = await services.blobs.put(Buffer.from("API_KEY=hunter2\n"));
    // A builtin stage captures no log; give it one as a sandbox checker would have (the row
    // guard admits only redactions, so the seed bypasses it, as a superuser may).
    await db.sql.begin(async (tx) => {
      await tx`set local session_replication_role = replica`;
      await tx`
        update verification_stage_results
        set log = ${tx.json({ ...secret, truncated: false, redaction: null })}
        where verification_run_id = ${verification_run_id} and stage_key = 'sat_check'`;
    });

    const badReason = await svcServer("redact-log", verification_run_id, "sat_check", "--reason", "oops");
    expect(badReason.code).toBe(2);
    expect(badReason.stderr).toContain("--reason");
    expect(badReason.stderr).toContain("secret_material, personal_data or legal_requirement");
    expect((await svcServer("redact-log", verification_run_id, "sat_check")).code).toBe(2);

    const redacted = await svcServer(
      "redact-log",
      verification_run_id,
      "sat_check",
      "--reason",
      "secret_material",
    );
    expect(redacted.code).toBe(0);
    expect(JSON.parse(redacted.stdout)).toMatchObject({
      verification_run_id,
      stage_key: "sat_check",
      original_bytes_removed: true,
      log: {
        redaction: {
          redacted_by_user_id: null,
          reason: "secret_material",
          original_content_hash: secret.content_hash,
          original_size_bytes: secret.size_bytes,
        },
      },
    });
    expect(await services.blobs.has(secret.content_hash)).toBe(false);
    // The run as served still matches its schema, the operator's null included.
    const record = await getVerification(
      db.sql,
      administrator(),
      verification_run_id,
      "http://svc.test",
      new Date(),
    );
    expect(checkSchema("verification-run", record).issues).toEqual([]);

    const again = await svcServer(
      "redact-log",
      verification_run_id,
      "sat_check",
      "--reason",
      "personal_data",
    );
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('"code":"already_redacted"');
  });

  it("implementation revoke-runs revokes its finished runs with one reason, revoked_by_user_id null", async () => {
    const [implementationId] = sat.implementation_ids;
    const { verification_run_id } = await finishedRun();
    expect((await svcServer("implementation", "revoke-runs", implementationId!)).code).toBe(2);
    const blank = await svcServer("implementation", "revoke-runs", implementationId!, "--reason", "");
    expect(blank.code).toBe(2);
    expect(blank.stderr).toContain("--reason");
    expect(blank.stderr).toContain("must say why");
    const malformed = await svcServer("implementation", "revoke-runs", "vfi_?", "--reason", "x");
    expect(malformed.code).toBe(2);
    expect(malformed.stderr).toContain("must be a VerifierImplementation id");

    const revoked = await svcServer(
      "implementation",
      "revoke-runs",
      implementationId!,
      "--reason",
      "accepts assignments that leave a clause unsatisfied",
    );
    expect(revoked.code).toBe(0);
    const printed = JSON.parse(revoked.stdout);
    expect(printed).toMatchObject({
      verifier_implementation_id: implementationId,
      revocation: {
        revoked_by_user_id: null,
        reason_md: "accepts assignments that leave a clause unsatisfied",
      },
    });
    expect(printed.revoked_verification_run_ids).toContain(verification_run_id);
    const record = await getVerification(
      db.sql,
      administrator(),
      verification_run_id,
      "http://svc.test",
      new Date(),
    );
    expect(record.revocation).toMatchObject({ revoked_by_user_id: null });
    expect(checkSchema("verification-run", record).issues).toEqual([]);
  });

  it("implementation yank withdraws an implementation once, yanked_by_user_id null", async () => {
    const spare = await seedImplementation(db.sql, {
      contractId: sat.verifier_contract_id,
      stageKey: "sat_check",
      author: author.user.id,
    });
    const yanked = await svcServer("implementation", "yank", spare, "--reason", "reads the wrong file");
    expect(yanked.code).toBe(0);
    expect(JSON.parse(yanked.stdout)).toMatchObject({
      verifier_implementation_id: spare,
      yank: { yanked_by_user_id: null, reason_md: "reads the wrong file" },
    });
    const [row] =
      await db.sql`select yanked_at, yanked_by_user_id from verifier_implementations where id = ${spare}`;
    expect(row!.yanked_at).not.toBeNull();
    expect(row!.yanked_by_user_id).toBeNull();
    const again = await svcServer("implementation", "yank", spare, "--reason", "twice");
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('"code":"already_yanked"');
  });

  it("external-system remove-attester removes an attester and keeps the removal, removed_by_user_id null", async () => {
    const partner = await newUser(db.sql);
    const registered = await svcServer(
      "external-system",
      "register",
      "Gamma Lab",
      "--hours",
      "4",
      "--attester",
      partner.user.handle,
    );
    expect(registered.code).toBe(0);
    expect(
      (await svcServer("external-system", "remove-attester", "Gamma Lab", partner.user.handle)).code,
    ).toBe(2);

    const removed = await svcServer(
      "external-system",
      "remove-attester",
      "Gamma Lab",
      partner.user.handle,
      "--reason",
      "left the lab",
    );
    expect(removed.code).toBe(0);
    expect(JSON.parse(removed.stdout)).toMatchObject({
      removal: {
        system: "Gamma Lab",
        user_id: partner.user.id,
        handle: partner.user.handle,
        added_by_user_id: null,
        removed_by_user_id: null,
        reason_md: "left the lab",
      },
    });
    expect(await db.sql`select 1 from external_system_attesters where system = 'Gamma Lab'`).toHaveLength(0);
    const [kept] = await db.sql`
      select user_id, removed_by_user_id, reason_md from external_system_attester_removals where system = 'Gamma Lab'`;
    expect(kept).toEqual({ user_id: partner.user.id, removed_by_user_id: null, reason_md: "left the lab" });

    const notAnAttester = await svcServer(
      "external-system",
      "remove-attester",
      "Gamma Lab",
      partner.user.handle,
      "--reason",
      "again",
    );
    expect(notAnAttester.code).toBe(1);
    expect(notAnAttester.stderr).toContain(`is not an attester of the partner system`);
    const noSystem = await svcServer(
      "external-system",
      "remove-attester",
      "Nowhere",
      partner.user.handle,
      "--reason",
      "x",
    );
    expect(noSystem.code).toBe(1);
    expect(noSystem.stderr).toContain('no partner system is registered as \\"Nowhere\\"');
  });

  it("stuck lists pending conformance, waiting runs and failing deliveries, as tables or --json", async () => {
    const pending = await seedImplementation(db.sql, {
      contractId: sat.verifier_contract_id,
      stageKey: "sat_check",
      author: author.user.id,
      status: "pending",
    });
    const queued = await seedSubmission(services, solver, sat, assignment("v 1 2 -3 0\n"));
    const [event] = await db.sql<{ id: string }[]>`
      insert into events (kind, occurred_at, audience_user_id, data)
      values ('verification.run_finished', now(), ${solver.user.id}, '{}') returning id`;
    await db.sql`
      insert into event_subscriptions (id, user_id, delivery, url, failures, retry_at, created_at)
      values ('esb_failing0001', ${solver.user.id}, 'webhook', 'https://hooks.example/svc', 3, now(), now())`;
    await db.sql`
      insert into event_deliveries (subscription_id, event_id, attempted_at, status_code, delivered, error, duration_ms)
      values ('esb_failing0001', ${event!.id}, now(), 503, false, 'answered 503 Service Unavailable', 12)`;

    const json = await svcServer("stuck", "--json");
    expect(json.code).toBe(0);
    const stuck = JSON.parse(json.stdout);
    expect(stuck.conformance_pending.items).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ verifier_implementation_id: pending, stage_key: "sat_check" }),
      ]),
    );
    expect(stuck.runs_waiting.items).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ verification_run_id: queued.verification_run_id, status: "queued" }),
      ]),
    );
    const created = stuck.runs_waiting.items.map((run: { created_at: string }) => run.created_at);
    expect(created).toEqual([...created].sort());
    expect(stuck.deliveries_failing).toEqual({
      total: 1,
      items: [
        expect.objectContaining({
          event_subscription_id: "esb_failing0001",
          failures: 3,
          last_status_code: 503,
          last_error: "answered 503 Service Unavailable",
        }),
      ],
    });

    const table = await svcServer("stuck");
    expect(table.code).toBe(0);
    expect(table.stdout).toContain("Conformance pending:");
    expect(table.stdout).toContain(pending);
    expect(table.stdout).toContain("Runs waiting:");
    expect(table.stdout).toContain(queued.verification_run_id);
    expect(table.stdout).toContain("Webhook deliveries failing: 1");
    expect(table.stdout).toContain("answered 503 Service Unavailable");
    expect((await svcServer("stuck", "--limit", "0")).code).toBe(2);
  });

  it("stuck measures ages from the time it is asked", async () => {
    const [run] = await db.sql<{ created_at: Date }[]>`
      select created_at from verification_runs where status <> 'finished' order by created_at limit 1`;
    const now = new Date(run!.created_at.getTime() + 90 * 60_000);
    const stuck = await listStuckWork(db.sql, now, 1);
    expect(stuck.runs_waiting.items).toHaveLength(1);
    expect(stuck.runs_waiting.items[0]!.age_seconds).toBe(5400);
    expect(stuck.runs_waiting.total).toBeGreaterThanOrEqual(1);
  });
});

it("ages read as their two largest units", () => {
  expect(humanAge(0)).toBe("0s");
  expect(humanAge(45)).toBe("45s");
  expect(humanAge(250)).toBe("4m 10s");
  expect(humanAge(5400)).toBe("1h 30m");
  expect(humanAge(3 * 86_400 + 4 * 3600 + 59)).toBe("3d 4h");
});
