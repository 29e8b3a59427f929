import type { Plan } from "@svc/schemas";
import type { Sql } from "../core/db/connect-sql.ts";
import type { WorkAuditEntry } from "../work/record-work-audit.ts";

/** What each step of a publication works with, inside the publishing transaction. */
export interface PublishContext {
  tx: Sql;
  /** The publisher: the caller, who owns what is created (an administrator too). */
  userId: string;
  uploadId: string;
  now: Date;
  plan: Plan;
  /** Audit entries collected by the steps, written together at the end. */
  audit: WorkAuditEntry[];
}

/** Byte-order comparison, independent of locale, for deterministic publication order. */
export function byteOrder(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
