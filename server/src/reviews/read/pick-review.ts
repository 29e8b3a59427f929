import type { ProtocolNode, ReviewProtocolDocument } from "@svc/schemas";
import { readCampaign } from "../../campaigns/read-campaign.ts";
import type { Services } from "../../core/services/services.ts";
import { readProblem } from "../../problems/read-problem.ts";
import {
  discoverableReviewSubjectSql,
  readableReviewSubjectSql,
} from "../../visibility/review-subject-access.ts";
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
 * caller holds no live or submitted seat on it, the work under review is surfaced to the caller
 * (listed, or theirs; with a filter naming its Problem or Campaign, any they may read: unlisted
 * work is found by name, private work by its owner and administrators), and the engine's standing check passes (eligible
 * and not in conflict; a submitter never sees their own subject). Unknown filters are not_found.
 */
export async function pickReview(
  services: Services,
  viewer: Viewer,
  input: PickReviewInput,
  baseUrl: string,
): Promise<{ seats: PickedSeat[] }> {
  const { sql } = services;
  // A filter naming work the caller cannot read is as unknown as work that does not exist.
  const problemId = input.problem ? (await readProblem(sql, viewer, input.problem)).id : null;
  const campaignId = input.campaign ? (await readCampaign(sql, viewer, input.campaign)).id : null;
  // Work the caller names is read by name; otherwise only discoverable work's seats surface.
  const named = problemId !== null || campaignId !== null;
  const now = services.clock();
  const candidates = await sql<ReviewNodeRow[]>`
    select ${sql.unsafe(
      NODE_COLUMNS.split(", ")
        .map((c) => `n.${c}`)
        .join(", "),
    )} from review_nodes n join review_processes rp on rp.id = n.review_process_id
    where rp.status = 'open' and n.status = 'open' and n.type = 'review'
      and n.opened_at <= ${now} and (n.deadline_at is null or n.deadline_at > ${now})
      and rp.subject_user_id <> ${viewer.userId}
      and ${named ? readableReviewSubjectSql(sql, viewer) : discoverableReviewSubjectSql(sql, viewer)}
      and exists (select 1 from jsonb_array_elements(rp.protocol_snapshot -> 'nodes') x
        where x ->> 'id' = n.node_id and x -> 'reviewers' ->> 'kind' = 'human')
      and not exists (select 1 from review_assignments a
        where a.review_process_id = n.review_process_id and a.node_id = n.node_id
          and a.reviewer_user_id = ${viewer.userId}
          and (a.status = 'submitted' or (a.status = 'claimed' and a.hold_until > ${now})))
      ${problemId ? sql`and rp.problem_id = ${problemId}` : sql``}
      ${campaignId ? sql`and rp.campaign_id = ${campaignId}` : sql``}
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
