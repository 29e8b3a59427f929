import type { AgentJobKind } from "@svc/schemas";
import type { Services } from "../core/services/services.ts";
import { pickReview } from "../reviews/read/pick-review.ts";
import type { Viewer } from "../visibility/viewer.ts";
import { readableProblemSql } from "../visibility/visibility-sql.ts";
import { agentJobId } from "./agent-job.ts";
import { dispatchableProblemSql } from "./dispatchable-problem-sql.ts";
import { type BudgetView, readBudget } from "./usage-budget.ts";

/** One job as list_agent_jobs and accept_agent_job return it. */
export interface AgentJob {
  job_id: string;
  kind: AgentJobKind;
  title: string;
  problem_id: string | null;
  review_process_id?: string;
  node_id?: string;
  /** A continuation's ended Attempt. */
  attempt_id?: string;
  deadline_at: string | null;
  lease: { lease_id: string; accepted_at: string; expires_at: string } | null;
}

/** list_agent_jobs' input, validated. */
export interface ListAgentJobsInput {
  kinds?: readonly AgentJobKind[] | undefined;
  limit: number;
}

/**
 * The jobs offered to the caller's agents now, seats first (soonest deadline first), then wanted
 * Problems (oldest want first), then Attempts to continue (latest ended first), each with the
 * caller's live lease on it. A seat is offered when pick_review would offer it and the caller may
 * read its Problem; a want while it stands and its Problem is readable and not archived; a
 * continuation while an ended Attempt of the caller has a Submission whose review completed with
 * `reject` (the review named defects), nobody continued it, and its Problem is readable and not
 * archived. Solve and continuation jobs also need every sandbox stage of the Problem's current
 * Contract to have a current implementation (spec 3, dispatchable-problem-sql.ts). Past the
 * budget nothing is offered.
 */
export async function listAgentJobs(
  services: Services,
  viewer: Viewer,
  input: ListAgentJobsInput,
  baseUrl: string,
): Promise<{ jobs: AgentJob[]; budget: BudgetView }> {
  const now = services.clock();
  const budget = await readBudget(services.sql, viewer.userId, now);
  if (budget.exhausted) return { jobs: [], budget };
  const jobs = await offeredJobs(services, viewer, input, baseUrl);
  return { jobs, budget };
}

/** The jobs offered now, budget aside (accept_agent_job checks one against them). */
export async function offeredJobs(
  services: Services,
  viewer: Viewer,
  input: ListAgentJobsInput & { problemId?: string; attemptId?: string },
  baseUrl: string,
): Promise<AgentJob[]> {
  const { sql } = services;
  const wanted = (kind: AgentJobKind) =>
    !input.kinds || input.kinds.length === 0 || input.kinds.includes(kind);
  const jobs: AgentJob[] = [];
  if (wanted("review_seat")) {
    const { seats } = await pickReview(
      services,
      viewer,
      { limit: input.limit, ...(input.problemId && { problem: input.problemId }) },
      baseUrl,
    );
    const problemIds = [...new Set(seats.flatMap((s) => (s.problem_id ? [s.problem_id] : [])))];
    const readable = new Set(
      problemIds.length === 0
        ? []
        : (
            await sql<{ id: string }[]>`
              select p.id from problems p left join campaigns c on c.id = p.campaign_id
              where p.id in ${sql(problemIds)} and ${readableProblemSql(sql, viewer)}`
          ).map((row) => row.id),
    );
    for (const seat of seats) {
      if (seat.problem_id && !readable.has(seat.problem_id)) continue;
      jobs.push({
        job_id: agentJobId({
          kind: "review_seat",
          review_process_id: seat.review_process_id,
          node_id: seat.node_id,
        }),
        kind: "review_seat",
        title: `Review seat: ${seat.node_title ?? seat.node_id}`,
        problem_id: seat.problem_id,
        review_process_id: seat.review_process_id,
        node_id: seat.node_id,
        deadline_at: seat.deadline_at,
        lease: null,
      });
    }
  }
  if (wanted("solve")) {
    const wants = await sql<{ problem_id: string; title: string }[]>`
      select w.problem_id, p.title from agent_wants w
        join problems p on p.id = w.problem_id left join campaigns c on c.id = p.campaign_id
      where w.user_id = ${viewer.userId} and w.withdrawn_at is null and p.status <> 'archived'
        and ${readableProblemSql(sql, viewer)} and ${dispatchableProblemSql(sql)}
        ${input.problemId ? sql`and w.problem_id = ${input.problemId}` : sql``}
      order by w.created_at, w.id limit ${input.limit}`;
    for (const want of wants) {
      jobs.push({
        job_id: agentJobId({ kind: "solve", problem_id: want.problem_id }),
        kind: "solve",
        title: `Solve: ${want.title}`,
        problem_id: want.problem_id,
        deadline_at: null,
        lease: null,
      });
    }
  }
  if (wanted("continuation")) {
    const ended = await sql<{ id: string; problem_id: string; title: string; ended_at: Date }[]>`
      select a.id, a.problem_id, p.title, a.ended_at from attempts a
        join problems p on p.id = a.problem_id left join campaigns c on c.id = p.campaign_id
      where a.user_id = ${viewer.userId} and a.status = 'ended' and p.status <> 'archived'
        and not exists (select 1 from attempts successor where successor.continues_attempt_id = a.id)
        and exists (
          select 1 from submissions s join review_processes rp
            on rp.subject_kind = 'submission' and rp.subject_id = s.id
          where s.attempt_id = a.id and rp.outcome = 'reject')
        and ${readableProblemSql(sql, viewer)} and ${dispatchableProblemSql(sql)}
        ${input.problemId ? sql`and a.problem_id = ${input.problemId}` : sql``}
        ${input.attemptId ? sql`and a.id = ${input.attemptId}` : sql``}
      order by a.ended_at desc, a.id limit ${input.limit}`;
    for (const attempt of ended) {
      jobs.push({
        job_id: agentJobId({ kind: "continuation", attempt_id: attempt.id }),
        kind: "continuation",
        title: `Continue after review: ${attempt.title}`,
        problem_id: attempt.problem_id,
        attempt_id: attempt.id,
        deadline_at: null,
        lease: null,
      });
    }
  }
  const page = jobs.slice(0, input.limit);
  if (page.length === 0) return page;
  const leases = await sql<{ id: string; job_id: string; accepted_at: Date; expires_at: Date }[]>`
    select id, job_id, accepted_at, expires_at from agent_job_leases
    where user_id = ${viewer.userId} and job_id in ${sql(page.map((j) => j.job_id))} and expires_at > ${services.clock()}`;
  for (const lease of leases) {
    const job = page.find((j) => j.job_id === lease.job_id)!;
    job.lease = {
      lease_id: lease.id,
      accepted_at: lease.accepted_at.toISOString(),
      expires_at: lease.expires_at.toISOString(),
    };
  }
  return page;
}
