import type { ProtocolNode, ReviewProtocolDocument } from "@svc/schemas";
import { findCampaign } from "../../campaigns/find-campaign.ts";
import { ServiceError } from "../../core/errors/service-error.ts";
import type { Services } from "../../core/services/services.ts";
import { findProblem } from "../../problems/find-problem.ts";
import type { Viewer } from "../../visibility/viewer.ts";
import { reviewNodeState } from "../node-state.ts";
import { reviewerStanding } from "../review-eligibility.ts";
import {
  ASSIGNMENT_COLUMNS,
  NODE_COLUMNS,
  PROCESS_COLUMNS,
  type ReviewAssignmentRow,
  type ReviewNodeRow,
  type ReviewProcessRow,
} from "../review-records.ts";
import { caseUrl } from "./review-links.ts";

/** One seat group the caller may claim (decisions.md "Review ids"). */
export interface PickedSeat {
  review_process_id: string;
  node_id: string;
  node_title: string | null;
  problem_id: string | null;
  open_seats: number;
  case_url: string;
  deadline_at: string | null;
}

/** pick_review's input: optional filters and a page size. */
export interface PickReviewInput {
  campaign?: string | undefined;
  problem?: string | undefined;
  limit: number;
}

/** How many open nodes one call examines at most before it stops looking for seats. */
const CANDIDATE_CEILING = 500;

/**
 * pick_review: open seats the caller may claim now, soonest deadline first. A seat is offered
 * when its process and node are open at the service clock (opened, deadline not passed, a seat
 * neither held nor filled), the node is a human one (the service fills agent nodes itself), the
 * caller holds no live or submitted seat on it, and the engine's standing check passes (eligible
 * and not in conflict; a submitter never sees their own subject). Unknown filters are not_found.
 */
export async function pickReview(
  services: Services,
  viewer: Viewer,
  input: PickReviewInput,
  baseUrl: string,
): Promise<{ seats: PickedSeat[] }> {
  const { sql } = services;
  const problemId = input.problem ? await problemIdOf(services, input.problem) : null;
  const campaignId = input.campaign ? await campaignIdOf(services, input.campaign) : null;
  const now = services.clock();
  const candidates = await sql<ReviewNodeRow[]>`
    select ${sql.unsafe(
      NODE_COLUMNS.split(", ")
        .map((c) => `n.${c}`)
        .join(", "),
    )} from review_nodes n join review_processes p on p.id = n.review_process_id
    where p.status = 'open' and n.status = 'open' and n.type = 'review'
      and n.opened_at <= ${now} and (n.deadline_at is null or n.deadline_at > ${now})
      and p.subject_user_id <> ${viewer.userId}
      and exists (select 1 from jsonb_array_elements(p.protocol_snapshot -> 'nodes') x
        where x ->> 'id' = n.node_id and x -> 'reviewers' ->> 'kind' = 'human')
      and not exists (select 1 from review_assignments a
        where a.review_process_id = n.review_process_id and a.node_id = n.node_id
          and a.reviewer_user_id = ${viewer.userId}
          and (a.status = 'submitted' or (a.status = 'claimed' and a.hold_until > ${now})))
      ${problemId ? sql`and p.problem_id = ${problemId}` : sql``}
      ${campaignId ? sql`and p.campaign_id = ${campaignId}` : sql``}
    order by n.deadline_at nulls last, n.review_process_id, n.node_id
    limit ${CANDIDATE_CEILING}`;
  const processIds = [...new Set(candidates.map((c) => c.review_process_id))];
  const processes = new Map(
    (processIds.length === 0
      ? []
      : await sql<ReviewProcessRow[]>`
          select ${sql.unsafe(PROCESS_COLUMNS)} from review_processes where id in ${sql(processIds)}`
    ).map((p) => [p.id, p]),
  );
  const seats: PickedSeat[] = [];
  for (const candidate of candidates) {
    if (seats.length >= input.limit) break;
    const process = processes.get(candidate.review_process_id)!;
    const node = (process.protocol_snapshot as ReviewProtocolDocument).nodes.find(
      (n: ProtocolNode) => n.id === candidate.node_id,
    );
    if (!node) continue;
    const assignments = await sql<ReviewAssignmentRow[]>`
      select ${sql.unsafe(ASSIGNMENT_COLUMNS)} from review_assignments
      where review_process_id = ${candidate.review_process_id} and node_id = ${candidate.node_id}`;
    const state = reviewNodeState(candidate, assignments, now);
    if (state.open_seats < 1 || state.deadline_passed) continue;
    const standing = await reviewerStanding(sql, viewer.userId, process, node);
    if (!standing.ok) continue;
    seats.push({
      review_process_id: candidate.review_process_id,
      node_id: candidate.node_id,
      node_title: node.title,
      problem_id: process.problem_id,
      open_seats: state.open_seats,
      case_url: caseUrl(baseUrl, candidate.review_process_id, candidate.node_id),
      deadline_at: candidate.deadline_at?.toISOString() ?? null,
    });
  }
  return { seats };
}

async function problemIdOf(services: Services, reference: string): Promise<string> {
  const problem = await findProblem(services.sql, reference);
  if (!problem)
    throw new ServiceError("not_found", `no problem has the id or slug "${reference}"`, {
      problem: reference,
    });
  return problem.id;
}

async function campaignIdOf(services: Services, reference: string): Promise<string> {
  const campaign = await findCampaign(services.sql, reference);
  if (!campaign) {
    throw new ServiceError("not_found", `no campaign has the id or slug "${reference}"`, {
      campaign: reference,
    });
  }
  return campaign.id;
}
