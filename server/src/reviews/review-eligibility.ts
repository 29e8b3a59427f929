import type { ProtocolNode } from "@svc/schemas";
import type { Sql } from "../core/db/connect-sql.ts";
import type { ReviewProcessRow } from "./review-records.ts";

/** Whether a user may take a seat of a node, and if not why (the code a refusal carries). */
export type ReviewerStanding =
  | { ok: true }
  | { ok: false; code: "not_eligible" | "conflict_of_interest"; reason: string };

/**
 * Whether `userId` may review `node` of `process` (spec 2.1 eligibility and conflicts), checked
 * live against memberships and Campaign ownership:
 *
 * - the submitter never reviews their own work, whatever the protocol says;
 * - only human review nodes take claims (the service issues agent seats itself);
 * - eligibility: `any_participant` any user; `organization_members` a current member of
 *   `organization_id`; `campaign_reviewers` the owner of the subject's Campaign or a current
 *   member of an Organization that owner owns (no Campaign: nobody); `named_users` the ids listed;
 * - `exclude_submitter_organization` refuses current members of the subject's Organization.
 */
export async function reviewerStanding(
  sql: Sql,
  userId: string,
  process: ReviewProcessRow,
  node: ProtocolNode,
): Promise<ReviewerStanding> {
  if (userId === process.subject_user_id) {
    return conflict("you made the work under review, and a submitter never reviews their own work");
  }
  if (node.type !== "review" || node.reviewers === null) {
    return notEligible(`node "${node.id}" is a ${node.type} node: it has no seats to review`);
  }
  if (node.reviewers.kind !== "human") {
    return notEligible(
      `node "${node.id}" is reviewed by hosted agents the service invokes; people cannot claim it`,
    );
  }
  const eligibility = node.reviewers.eligibility;
  if (!eligibility) return notEligible(`node "${node.id}" names no eligibility rule`);
  switch (eligibility.rule) {
    case "any_participant":
      break;
    case "organization_members":
      if (!eligibility.organization_id || !(await isMember(sql, userId, eligibility.organization_id))) {
        return notEligible(
          `node "${node.id}" is reviewed by members of organization ${eligibility.organization_id} only`,
        );
      }
      break;
    case "campaign_reviewers":
      if (!process.campaign_id || !(await isCampaignReviewer(sql, userId, process.campaign_id))) {
        return notEligible(
          `node "${node.id}" is reviewed by the Campaign's reviewers only: its owner and members of Organizations the owner owns`,
        );
      }
      break;
    case "named_users":
      if (!(eligibility.user_ids ?? []).includes(userId)) {
        return notEligible(`node "${node.id}" is reviewed by the users the protocol names only`);
      }
      break;
    default: {
      const never: never = eligibility.rule;
      throw new Error(`unknown eligibility rule ${String(never)}`);
    }
  }
  const conflicts = node.conflicts ?? { exclude_submitter: true, exclude_submitter_organization: false };
  if (
    conflicts.exclude_submitter_organization &&
    process.subject_organization_id &&
    (await isMember(sql, userId, process.subject_organization_id))
  ) {
    return conflict("you are a member of the Organization the work under review is attributed to");
  }
  return { ok: true };
}

function notEligible(reason: string): ReviewerStanding {
  return { ok: false, code: "not_eligible", reason };
}

function conflict(reason: string): ReviewerStanding {
  return { ok: false, code: "conflict_of_interest", reason };
}

async function isMember(sql: Sql, userId: string, organizationId: string): Promise<boolean> {
  const rows = await sql`
    select 1 from memberships where organization_id = ${organizationId} and user_id = ${userId}`;
  return rows.length > 0;
}

async function isCampaignReviewer(sql: Sql, userId: string, campaignId: string): Promise<boolean> {
  const rows = await sql`
    select 1 from campaigns c
    where c.id = ${campaignId}
      and (c.owner_user_id = ${userId} or exists (
        select 1 from memberships owner
        join memberships reviewer on reviewer.organization_id = owner.organization_id
        where owner.user_id = c.owner_user_id and owner.role = 'owner' and reviewer.user_id = ${userId}))`;
  return rows.length > 0;
}
