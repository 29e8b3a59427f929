import { EventKind } from "@svc/schemas";
import type { Sql } from "../core/db/connect-sql.ts";
import type { EventAudience } from "../events/event-audience.ts";
import type { EventRow } from "../events/event-record.ts";
import { readProcessRow } from "../reviews/read-process-rows.ts";
import { reviewerStanding } from "../reviews/review-eligibility.ts";
import { EFFECTIVE_VISIBILITY_SQL } from "../visibility/visibility-sql.ts";

/**
 * Who sees an event, decided when it is read or delivered (docs/agents.md "Events"): a personal
 * event its one user; a seat event whoever may read the Problem and whose reviewer standing for
 * the node passes now (eligible, not in conflict, not the submitter), the rule pick_review
 * applies. Anything else is seen by nobody.
 */
export const canSeeEvent: EventAudience = async (sql: Sql, userId: string, event: EventRow) => {
  if (event.audience_user_id !== null) return event.audience_user_id === userId;
  if (event.kind !== EventKind.seatOpened || !event.review_process_id || !event.node_id) return false;
  const process = await readProcessRow(sql, event.review_process_id);
  if (!process) return false;
  if (process.problem_id && !(await mayReadProblem(sql, userId, process.problem_id))) return false;
  const node = process.protocol_snapshot.nodes.find((candidate) => candidate.id === event.node_id);
  if (!node) return false;
  return (await reviewerStanding(sql, userId, process, node)).ok;
};

/** canReadWork for one Problem: its owner, an administrator, or anyone when it is not private. */
async function mayReadProblem(sql: Sql, userId: string, problemId: string): Promise<boolean> {
  const [row] = await sql<{ readable: boolean }[]>`
    select (p.owner_user_id = ${userId} or ${sql.unsafe(EFFECTIVE_VISIBILITY_SQL)} <> 'private'
      or exists (select 1 from users u where u.id = ${userId} and u.is_admin)) as readable
    from problems p left join campaigns c on c.id = p.campaign_id where p.id = ${problemId}`;
  return row?.readable === true;
}
