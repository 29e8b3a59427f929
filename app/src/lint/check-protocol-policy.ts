import type { ReviewProtocolDocument } from "@svc/schemas";
import type { ProtocolFindings } from "./protocol-findings.ts";

/** Rule 16: a claim lapses before the node deadline; the deprecated replacement cap is noted. */
export function checkProtocolPolicy(document: ReviewProtocolDocument, findings: ProtocolFindings): void {
  const { assignment_timeout_hours: hours, claim_hold_minutes: hold } = document.policy;
  if (hold >= hours * 60) {
    findings.violation(
      16,
      "/policy/claim_hold_minutes",
      `claim_hold_minutes (${hold}) must be shorter than assignment_timeout_hours x 60 (${hours * 60}), or a lapsed claim could never reopen its seat in time; lower it or raise the timeout`,
    );
  }
  if (document.policy.max_replacements_per_node !== undefined) {
    findings.deprecated(
      "/policy/max_replacements_per_node",
      "max_replacements_per_node is deprecated and ignored; remove it",
    );
  }
}
