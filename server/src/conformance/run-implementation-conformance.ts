import { checkerImplementation, runConformance } from "@svc/app";
import type { VerifierContractFile } from "@svc/schemas";
import type postgres from "postgres";
import { recordImplementationCurrent } from "../agents/record-implementation-current.ts";
import type { Services } from "../core/services/services.ts";
import { readBlobBytes } from "../downloads/read-blob-bytes.ts";
import type { RunnableImplementation } from "../verification/current-implementation.ts";
import { currentImplementation } from "../verification/current-implementation.ts";
import { resolveBinding } from "../verification/resolve-binding.ts";
import { conformanceRecord } from "./conformance-record.ts";

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
 * deployment cannot run stays `pending` (runs reaching it wait, then finish inconclusive).
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

  const resolution = await resolveBinding(sql, await services.sandbox.engines(), row.runtime.image_ref);
  if (resolution.kind === "wait") return { kind: "wait", reason: resolution.reason };
  if (resolution.kind !== "ready") return { kind: "cannot_run", reason: resolution.reason };

  const program = row.program ? await readBlobBytes(services.blobs, row.program.content_hash) : null;
  const report = await runConformance({
    contract: row.document,
    stageKey: row.stage_key,
    implementation: checkerImplementation(row, program),
    readBytes: async (file) => {
      if (!file.content_hash) throw new Error(`fixture file ${file.filename} states no content_hash`);
      return await readBlobBytes(services.blobs, file.content_hash);
    },
    run: (job) => services.sandbox.run(job, resolution.binding),
  });
  const record = conformanceRecord(report, services.clock());
  await sql.begin(async (tx) => {
    const updated = await tx`
      update verifier_implementations set conformance = ${tx.json(record as unknown as postgres.JSONValue)}
      where id = ${implementationId} and conformance->>'status' = 'pending'`;
    if (updated.count === 0 || record.status !== "passed") return;
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
    },
    "conformance checked",
  );
  return { kind: "checked", status: report.status };
}
