import { currentImplementations } from "@svc/app";
import type { ConformanceStatus, ImplementationSource } from "@svc/schemas";
import {
  type ConformanceFailure,
  type ConformanceRecordFailure,
  conformanceFailures,
  readConformanceFailures,
} from "../conformance/read-conformance-failures.ts";
import type { Sql } from "../core/db/connect-sql.ts";
import { type Differential, readDifferentials } from "../sandbox-images/read-differentials.ts";

/** One VerifierImplementation as get_verifier_contract summarizes it. */
export interface ImplementationSummary {
  id: string;
  stage_key: string;
  version_number: number;
  runtime: { kind: "container"; image_ref: string; image_digest: string };
  /** The argument vector the checker runs with (`@image-entrypoint`: the image's own). */
  entrypoint: string[];
  /** The limits a run gives it (network is always none). */
  limits: { vcpu: number; memory_mb: number; disk_mb: number; timeout_seconds: number; network: "none" };
  content_hash: string;
  program: { filename: string; content_hash: string; size_bytes: number } | null;
  /** Where the checker's source lives (spec 2.2), as its package stated it; null keys when unstated. */
  source: ImplementationSource;
  conformance: {
    status: ConformanceStatus;
    checked_at: string | null;
    fixtures_total: number;
    fixtures_passed: number;
    /** Each fixture it failed, with the checker's own output (issue 33); empty when passed or pending. */
    failures: ConformanceFailure[];
  } & Differential;
  created_at: string;
  yanked_at: string | null;
  /** The stage's current implementation: its highest non-yanked version whose conformance passed. */
  current: boolean;
}

interface ImplementationRow {
  id: string;
  stage_key: string;
  version_number: number;
  runtime: ImplementationSummary["runtime"];
  entrypoint: string[];
  limits: ImplementationSummary["limits"];
  content_hash: string;
  program: ImplementationSummary["program"];
  source: ImplementationSource;
  conformance: Omit<ImplementationSummary["conformance"], "failures"> & {
    failures: ConformanceRecordFailure[];
  };
  created_at: Date;
  yanked_at: Date | null;
}

/**
 * Every implementation of a Contract, by stage then version, with what a run needs to execute it;
 * `current` marks each stage's one by the shared rule (`currentImplementations`, spec 2.2).
 */
export async function implementationSummaries(
  sql: Sql,
  contractId: string,
): Promise<ImplementationSummary[]> {
  const rows = await sql<ImplementationRow[]>`
    select id, stage_key, version_number, runtime, entrypoint, limits, content_hash, program, source, conformance,
      created_at, yanked_at
    from verifier_implementations where verifier_contract_id = ${contractId}
    order by stage_key, version_number`;
  const choices = currentImplementations(rows);
  const ids = rows.map((row) => row.id);
  const differentials = await readDifferentials(sql, ids);
  const logs = await readConformanceFailures(sql, ids);
  return rows.map((row) => ({
    id: row.id,
    stage_key: row.stage_key,
    version_number: row.version_number,
    runtime: row.runtime,
    entrypoint: row.entrypoint,
    limits: row.limits,
    content_hash: row.content_hash,
    program: row.program,
    source: row.source,
    conformance: {
      status: row.conformance.status,
      checked_at: row.conformance.checked_at,
      fixtures_total: row.conformance.fixtures_total,
      fixtures_passed: row.conformance.fixtures_passed,
      failures: conformanceFailures({ ...row, failures: row.conformance.failures }, logs),
      ...differentials.get(row.id)!,
    },
    created_at: row.created_at.toISOString(),
    yanked_at: row.yanked_at?.toISOString() ?? null,
    current: choices.get(row.stage_key)?.current?.id === row.id,
  }));
}
