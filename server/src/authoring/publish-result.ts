import type { ProblemAction, Reconciliation } from "./reconcile.ts";

export type Visibility = "private" | "unlisted" | "listed";

/** One Problem of a publication, with the revision that is current afterwards. */
export interface PublishedProblem {
  slug: string;
  action: ProblemAction;
  problem_id: string;
  problem_revision_id: string;
  revision_number: number;
  /** Effective visibility: a Campaign's Problem is seen at most as widely as its Campaign. */
  visibility: Visibility;
  /** Listed, open and (in a Campaign) in an active Campaign: search and discovery show it. */
  listed_in_explore: boolean;
}

/**
 * publish_authoring_upload's result (spec 4.1), recorded once with the upload: a republish returns
 * it unchanged. Id lists hold every record the package resolved to, created or reused.
 */
export interface PublishResult {
  campaign_id?: string;
  campaign?: {
    campaign_id: string;
    slug: string;
    action: string;
    status: string;
    visibility: Visibility;
  };
  problems: PublishedProblem[];
  skill_version_ids: string[];
  verifier_contract_ids: string[];
  verifier_implementation_ids: string[];
  review_protocol_ids: string[];
  counts: Reconciliation["counts"];
  reconciliation: Reconciliation;
}
