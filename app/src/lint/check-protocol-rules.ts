import type { LintNote, LintRecord, ReviewProtocolDocument } from "@svc/schemas";
import { checkProtocolNodeFields } from "./check-protocol-node-fields.ts";
import { checkProtocolOrdering } from "./check-protocol-ordering.ts";
import { checkProtocolPolicy } from "./check-protocol-policy.ts";
import { checkProtocolReducers } from "./check-protocol-reducers.ts";
import { checkProtocolReferences } from "./check-protocol-references.ts";
import { checkProtocolReviewers } from "./check-protocol-reviewers.ts";
import { checkProtocolRubrics } from "./check-protocol-rubrics.ts";
import { checkProtocolSkills } from "./check-protocol-skills.ts";
import { ProtocolFindings } from "./protocol-findings.ts";
import { buildProtocolGraph } from "./protocol-graph.ts";

export interface CheckProtocolRulesOptions {
  /** Package-relative path of the review-protocol.json, put on every record. */
  file: string;
  /** Names of the package's skill directories, which `./skills/<name>` may reference. */
  localSkills: ReadonlySet<string>;
}

/**
 * Lint pass 3, after the document schema: review-protocol rules 1 to 16 (numbered in
 * review-protocol-rules.md) and local skill references. Pure; never throws on a schema-valid
 * document (defaults applied). Reports every violation, ordered by path, each once: a check
 * that an earlier violation makes meaningless (a dangling id in the cycle search, the field
 * of a reducer whose input is not a review node) is skipped rather than reported again.
 */
export function checkProtocolRules(
  document: ReviewProtocolDocument,
  options: CheckProtocolRulesOptions,
): { errors: LintRecord[]; notes: LintNote[] } {
  const findings = new ProtocolFindings(options.file);
  const graph = buildProtocolGraph(document);
  checkProtocolReferences(document, graph, findings);
  checkProtocolNodeFields(document, findings);
  checkProtocolOrdering(document, graph, findings);
  checkProtocolReviewers(document, findings);
  checkProtocolRubrics(document, findings);
  checkProtocolReducers(document, graph, findings);
  checkProtocolPolicy(document, findings);
  checkProtocolSkills(document, options.localSkills, findings);
  return findings.result();
}
