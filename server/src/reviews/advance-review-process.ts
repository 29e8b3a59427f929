import type { ProtocolNode } from "@svc/schemas";
import { EventKind, IdPrefix } from "@svc/schemas";
import type postgres from "postgres";
import type { Sql } from "../core/db/connect-sql.ts";
import { randomId } from "../core/ids/random-id.ts";
import { enqueueRun } from "../core/jobs/enqueue-run.ts";
import type { EffectiveAgentConfig } from "../core/services/hosted-reviewer.ts";
import type { Services } from "../core/services/services.ts";
import { appendEvent } from "../events/append-event.ts";
import { planTransitions, type Transition } from "./process-transitions.ts";
import { readAssignmentRows, readNodeRows, readProcessRow } from "./read-process-rows.ts";
import { reduceNode } from "./reduce/reduce-node.ts";
import { deadlineTimerKey, enqueueAgentSeat, scheduleReviewTimer } from "./review-jobs.ts";
import type { ReviewProcessRow } from "./review-records.ts";

/**
 * Brings a process up to `services.clock()`: under the process row's lock, records the lapsed
 * holds, opens, completes and skips nodes, runs reducers, issues the seats of agent nodes (and
 * queues their invocation), schedules each new deadline, and finishes the process, waking the
 * VerificationRun that waits on it. Idempotent and safe to call any time from anywhere: a second
 * call at the same instant changes nothing.
 */
export async function advanceReviewProcess(services: Services, processId: string): Promise<void> {
  await services.sql.begin(async (tx) => {
    const process = await readProcessRow(tx, processId, { lock: true });
    if (!process || process.status === "finished") return;
    const now = services.clock();
    const transitions = planTransitions(
      process.protocol_snapshot,
      await readNodeRows(tx, processId),
      await readAssignmentRows(tx, processId),
      now,
      reduceNode,
    );
    for (const transition of transitions) await apply(services, tx, process, transition, now);
  });
}

async function apply(
  services: Services,
  tx: Sql,
  process: ReviewProcessRow,
  transition: Transition,
  now: Date,
): Promise<void> {
  switch (transition.kind) {
    case "lapse":
      await tx`
        update review_assignments set status = 'lapsed', ended_at = ${transition.at}
        where id = ${transition.assignment_id} and status = 'claimed'`;
      return;
    case "open": {
      await tx`
        update review_nodes set status = 'open', opened_at = ${transition.opened_at}, deadline_at = ${transition.deadline_at}
        where review_process_id = ${process.id} and node_id = ${transition.node_id} and status = 'pending'`;
      await scheduleReviewTimer(
        tx,
        process.id,
        deadlineTimerKey(process.id, transition.node_id),
        transition.deadline_at,
      );
      const node = process.protocol_snapshot.nodes.find((candidate) => candidate.id === transition.node_id)!;
      if (node.reviewers?.kind === "agent") await issueAgentSeats(services, tx, process, node, now);
      if (node.reviewers?.kind === "human") {
        // Wakes the agents of whoever may claim a seat (docs/agents.md); the reader's standing is
        // checked when the event is read, and the submitter is never named.
        await appendEvent(tx, {
          kind: EventKind.seatOpened,
          occurredAt: transition.opened_at,
          audienceUserId: null,
          problemId: process.problem_id,
          reviewProcessId: process.id,
          nodeId: node.id,
          data: {
            review_process_id: process.id,
            node_id: node.id,
            node_title: node.title,
            problem_id: process.problem_id,
            seats: node.reviewers.count,
            deadline_at: transition.deadline_at.toISOString(),
          },
        });
      }
      return;
    }
    case "complete_review":
      await tx`
        update review_nodes set status = 'completed', completed_at = ${transition.completed_at}
        where review_process_id = ${process.id} and node_id = ${transition.node_id} and status = 'open'`;
      return;
    case "reduce":
      await tx`
        update review_nodes
        set status = 'completed', opened_at = ${transition.completed_at}, completed_at = ${transition.completed_at},
          outcome = ${transition.reduction.outcome},
          reduction = ${tx.json(transition.reduction as unknown as postgres.JSONValue)}
        where review_process_id = ${process.id} and node_id = ${transition.node_id} and status = 'pending'`;
      return;
    case "skip":
      await tx`
        update review_nodes set status = 'skipped', skip_reason = ${transition.skip_reason}
        where review_process_id = ${process.id} and node_id = ${transition.node_id} and status = 'pending'`;
      return;
    case "finish":
      await tx`
        update review_processes
        set status = 'finished', outcome = ${transition.outcome}, end_reason = ${transition.end_reason},
          finished_at = ${transition.finished_at}
        where id = ${process.id} and status = 'open'`;
      // The stage waiting on this process finishes when its run executes again.
      if (process.verification_run_id) await enqueueRun(tx, process.verification_run_id);
      return;
    default: {
      const never: never = transition;
      throw new Error(`unknown transition ${JSON.stringify(never)}`);
    }
  }
}

/**
 * One assignment per seat of an opening agent node: seat i is `allowed[i % allowed.length]`
 * with the provider's defaults resolved. A provider this deployment cannot resolve leaves that
 * seat's assignment lapsed with the reason, so the seat stays open until the deadline.
 */
async function issueAgentSeats(
  services: Services,
  tx: Sql,
  process: ReviewProcessRow,
  node: ProtocolNode,
  now: Date,
): Promise<void> {
  const allowed = node.reviewers?.allowed ?? [];
  const skills = tx.json((node.skills ?? []) as unknown as postgres.JSONValue);
  for (let seat = 0; seat < (node.reviewers?.count ?? 0) && allowed.length > 0; seat++) {
    const entry = allowed[seat % allowed.length]!;
    const id = randomId(IdPrefix.reviewAssignment);
    let agent: EffectiveAgentConfig;
    try {
      agent = services.hostedReviewers.resolve(entry);
    } catch (error) {
      await tx`
        insert into review_assignments
          (id, review_process_id, node_id, reviewer_kind, agent, skills_supplied, status, claimed_at, ended_at, agent_last_error)
        values (${id}, ${process.id}, ${node.id}, 'agent', ${tx.json(entry as unknown as postgres.JSONValue)}, ${skills},
          'lapsed', ${now}, ${now}, ${`the provider could not be resolved: ${(error as Error).message}`})`;
      continue;
    }
    await tx`
      insert into review_assignments (id, review_process_id, node_id, reviewer_kind, agent, skills_supplied, claimed_at)
      values (${id}, ${process.id}, ${node.id}, 'agent', ${tx.json(agent as unknown as postgres.JSONValue)}, ${skills}, ${now})`;
    await enqueueAgentSeat(tx, id);
  }
}
