import { pointer, type ReviewProtocolDocument } from "@svc/schemas";
import { HOSTED_PROVIDERS } from "./hosted-providers.ts";
import type { ProtocolFindings } from "./protocol-findings.ts";

/**
 * Rules 8 and 9 on every review node's `reviewers`: the fields each reviewer kind and each
 * eligibility rule require or exclude, then every hosted agent against the provider catalogue.
 * A misplaced field is reported once by rule 8 and its content is not inspected further.
 */
export function checkProtocolReviewers(document: ReviewProtocolDocument, findings: ProtocolFindings): void {
  document.nodes.forEach((node, i) => {
    const reviewers = node.reviewers;
    if (node.type !== "review" || reviewers === null) return;
    const at = (...rest: Array<string | number>) => pointer("nodes", i, "reviewers", ...rest);

    if (reviewers.kind === "human") {
      if (reviewers.allowed !== null) {
        findings.violation(8, at("allowed"), "human reviewers take no allowed agents; set allowed to null");
      }
      const eligibility = reviewers.eligibility;
      if (eligibility === null) {
        findings.violation(
          8,
          at("eligibility"),
          'human reviewers need eligibility, e.g. {"rule": "any_participant"}; say who may claim a seat',
        );
      } else if (eligibility.rule === "organization_members" && eligibility.organization_id === null) {
        findings.violation(
          8,
          at("eligibility", "organization_id"),
          "rule organization_members needs organization_id; name the org_ id whose members may review",
        );
      } else if (eligibility.rule === "named_users" && (eligibility.user_ids ?? []).length === 0) {
        findings.violation(
          8,
          at("eligibility", "user_ids"),
          "rule named_users needs a non-empty user_ids; list the usr_ ids who may review",
        );
      }
      return;
    }

    if (reviewers.eligibility !== null) {
      findings.violation(8, at("eligibility"), "agent reviewers take no eligibility; set it to null");
    }
    if (reviewers.assistance !== null) {
      findings.violation(8, at("assistance"), "agent reviewers take no assistance; set it to null");
    }
    if (reviewers.allowed === null || reviewers.allowed.length === 0) {
      findings.violation(
        8,
        at("allowed"),
        'agent reviewers need a non-empty allowed list, e.g. [{"provider": "anthropic", "model": "...", "config": {}}]',
      );
      return;
    }

    reviewers.allowed.forEach((agent, j) => {
      const provider = HOSTED_PROVIDERS.get(agent.provider);
      if (provider === undefined) {
        findings.violation(
          9,
          at("allowed", j, "provider"),
          `provider "${agent.provider}" is not hosted by this service; use one of ${[...HOSTED_PROVIDERS.keys()].join(", ")}`,
        );
        return;
      }
      for (const problem of provider.configProblems(agent.config)) {
        findings.violation(9, at("allowed", j, "config", problem.key), problem.message);
      }
    });
  });
}
