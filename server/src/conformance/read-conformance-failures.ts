import type { Sql } from "../core/db/connect-sql.ts";
import type { ConformanceRecord } from "./conformance-record.ts";

/** A failure as the conformance record (spec 2.2) states it. */
export type ConformanceRecordFailure = ConformanceRecord["failures"][number];

/**
 * A fixture an implementation failed, as get_verifier_contract shows it: the record's failure, the
 * stage and implementation it belongs to, and the last 4 KiB of the checker's stdout then stderr.
 */
export interface ConformanceFailure extends ConformanceRecordFailure {
  stage_key: string;
  verifier_implementation_id: string;
  log_tail: string;
}

/** The kept checker output of each of `ids`' failed fixtures: implementation id -> fixture key -> tail. */
export async function readConformanceFailures(
  sql: Sql,
  ids: readonly string[],
): Promise<Map<string, Map<string, string>>> {
  const logs = new Map<string, Map<string, string>>();
  if (ids.length === 0) return logs;
  const rows = await sql<{ verifier_implementation_id: string; fixture_key: string; log_tail: string }[]>`
    select verifier_implementation_id, fixture_key, log_tail from conformance_failure_logs
    where verifier_implementation_id = any(${ids as string[]})`;
  for (const row of rows) {
    const byFixture = logs.get(row.verifier_implementation_id) ?? new Map<string, string>();
    byFixture.set(row.fixture_key, row.log_tail);
    logs.set(row.verifier_implementation_id, byFixture);
  }
  return logs;
}

/** An implementation's record failures, each with its stage, its id and the checker's kept output. */
export function conformanceFailures(
  implementation: { id: string; stage_key: string; failures: readonly ConformanceRecordFailure[] },
  logs: ReadonlyMap<string, ReadonlyMap<string, string>>,
): ConformanceFailure[] {
  return implementation.failures.map((failure) => ({
    stage_key: implementation.stage_key,
    verifier_implementation_id: implementation.id,
    ...failure,
    log_tail: logs.get(implementation.id)?.get(failure.fixture_key) ?? "",
  }));
}
