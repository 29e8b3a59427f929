import { type ConformanceReport, checkerImplementation, runConformance } from "@svc/app";
import type { VerifierContractFile } from "@svc/schemas";
import type postgres from "postgres";
import { recordImplementationCurrent } from "../agents/record-implementation-current.ts";
import type { Services } from "../core/services/services.ts";
import { readBlobBytes } from "../downloads/read-blob-bytes.ts";
import type { FixtureDisagreement } from "../sandbox-images/read-differentials.ts";
import type { RunnableImplementation } from "../verification/current-implementation.ts";
import { currentImplementation } from "../verification/current-implementation.ts";
import { resolveBinding } from "../verification/resolve-binding.ts";
import { conformanceRecord } from "./conformance-record.ts";
import { fixtureDisagreements } from "./fixture-disagreements.ts";

export type ConformanceOutcome =
  | { kind: "checked"; status: "passed" | "failed" }
  /** Already checked: conformance is run once per implementation. */
  | { kind: "skipped" }
  /** Its image is still being provisioned: run again later. */
  | { kind: "wait"; reason: string }
  /** Nothing here can run it (unbound runtime, failed image): it stays pending. */
  | { kind: "cannot_run"; reason: string };

/**
 * Runs a published implementation's conformance fixtures (spec 2.2 and 3) from the blob store and
 * records the outcome on it: `passed` when every fixture gave its expected result and score,
 * `failed` with the failures listed otherwise. A failed implementation stays as it is, inspectable;
 * the stage's current implementation is the highest non-yanked passed one. An implementation this
 * deployment cannot run stays `pending` (runs reaching it wait, then finish inconclusive). When
 * the stage already has a current implementation, that one runs the fixtures too and the record
 * names it, with the fixtures they disagree on (differential conformance, docs/verification.md).
 */
export async function runImplementationConformance(
  services: Services,
  implementationId: string,
): Promise<ConformanceOutcome> {
  const { sql } = services;
  const [row] = await sql<
    (RunnableImplementation & { verifier_contract_id: string; document: VerifierContractFile })[]
  >`
    select vi.id, vi.stage_key, vi.version_number, vi.runtime, vi.entrypoint, vi.limits, vi.content_hash, vi.program,
      vi.conformance, vi.yanked_at, vi.verifier_contract_id, vc.document
    from verifier_implementations vi join verifier_contracts vc on vc.id = vi.verifier_contract_id
    where vi.id = ${implementationId}`;
  if (!row) throw new Error(`no verifier implementation ${implementationId}`);
  if (row.conformance.status !== "pending") return { kind: "skipped" };

  const report = await runFixtures(services, row.document, row);
  if (report.kind !== "ran") return report;
  // Differential conformance: the stage's current implementation runs the same fixtures, and every
  // fixture where the two differ is recorded, so a reader sees what a new version would change.
  const { current } = await currentImplementation(sql, row.verifier_contract_id, row.stage_key);
  let against: RunnableImplementation | null = null;
  let disagreements: FixtureDisagreement[] = [];
  if (current && current.id !== implementationId) {
    const theirs = await runFixtures(services, row.document, current);
    if (theirs.kind === "wait") return theirs;
    // A current implementation nothing here can run any more is no comparison: the id stays null.
    if (theirs.kind === "ran") {
      against = current;
      disagreements = fixtureDisagreements(report.report.results, theirs.report.results);
    }
  }
  const record = conformanceRecord(report.report, services.clock(), against?.id ?? null);
  await sql.begin(async (tx) => {
    const updated = await tx`
      update verifier_implementations set conformance = ${tx.json(record as unknown as postgres.JSONValue)}
      where id = ${implementationId} and conformance->>'status' = 'pending'`;
    if (updated.count === 0) return;
    for (const d of disagreements) {
      await tx`
        insert into conformance_disagreements
          (verifier_implementation_id, against_implementation_id, fixture_key, result, against_result, score,
            against_score)
        values (${implementationId}, ${against!.id}, ${d.fixture_key}, ${d.result}, ${d.against_result},
          ${d.score}, ${d.against_score})`;
    }
    // The checker's own output on each failed fixture, kept beside the spec's record (migration 026).
    for (const failure of record.failures) {
      const tail = report.report.results.find((r) => r.fixture === failure.fixture_key)?.log_tail ?? "";
      await tx`
        insert into conformance_failure_logs (verifier_implementation_id, fixture_key, log_tail)
        values (${implementationId}, ${failure.fixture_key}, ${tail})`;
    }
    if (record.status !== "passed") return;
    // Passing may make it the stage's current implementation: tell the users whose work it checks.
    const { current } = await currentImplementation(tx, row.verifier_contract_id, row.stage_key);
    if (current?.id !== implementationId) return;
    await recordImplementationCurrent(tx, {
      contractId: row.verifier_contract_id,
      stageKey: row.stage_key,
      implementationId,
      versionNumber: row.version_number,
      at: services.clock(),
    });
  });
  services.log.info(
    {
      verifier_implementation_id: implementationId,
      status: record.status,
      passed: record.fixtures_passed,
      total: record.fixtures_total,
      differential_against_implementation_id: record.differential_against_implementation_id,
      disagreements: disagreements.length,
    },
    "conformance checked",
  );
  return { kind: "checked", status: report.report.status };
}

/**
 * One implementation's run of the stage's fixtures from the blob store, on the backend its image
 * resolves to here; an image still provisioning waits, one nothing here runs cannot run.
 */
async function runFixtures(
  services: Services,
  contract: VerifierContractFile,
  implementation: RunnableImplementation,
): Promise<
  { kind: "ran"; report: ConformanceReport } | Exclude<ConformanceOutcome, { kind: "checked" | "skipped" }>
> {
  const resolution = await resolveBinding(
    services.sql,
    await services.sandbox.engines(),
    implementation.runtime.image_ref,
  );
  if (resolution.kind === "wait") return { kind: "wait", reason: resolution.reason };
  if (resolution.kind !== "ready") return { kind: "cannot_run", reason: resolution.reason };
  const program = implementation.program
    ? await readBlobBytes(services.blobs, implementation.program.content_hash)
    : null;
  const report = await runConformance({
    contract,
    stageKey: implementation.stage_key,
    implementation: checkerImplementation(implementation, program),
    readBytes: async (file) => {
      if (!file.content_hash) throw new Error(`fixture file ${file.filename} states no content_hash`);
      return await readBlobBytes(services.blobs, file.content_hash);
    },
    run: (job) => services.sandbox.run(job, resolution.binding),
  });
  return { kind: "ran", report };
}
