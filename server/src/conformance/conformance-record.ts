import type { ConformanceReport } from "@svc/app";
import type { ConformanceStatus } from "@svc/schemas";

/** VerifierImplementation.conformance (spec 2.2). */
export interface ConformanceRecord {
  status: ConformanceStatus;
  checked_at: string | null;
  fixtures_total: number;
  fixtures_passed: number;
  failures: ConformanceReport["failures"];
  differential_against_implementation_id: string | null;
}

/**
 * The record a finished fixture suite leaves on its implementation; `differentialAgainst` names
 * the stage's current implementation it was also compared with, if there was one.
 */
export function conformanceRecord(
  report: ConformanceReport,
  checkedAt: Date,
  differentialAgainst: string | null = null,
): ConformanceRecord {
  return {
    status: report.status,
    checked_at: checkedAt.toISOString(),
    fixtures_total: report.fixtures_total,
    fixtures_passed: report.fixtures_passed,
    failures: report.failures,
    differential_against_implementation_id: differentialAgainst,
  };
}
