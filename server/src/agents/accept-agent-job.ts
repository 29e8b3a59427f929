import { IdPrefix } from "@svc/schemas";
import { ServiceError } from "../core/errors/service-error.ts";
import { randomId } from "../core/ids/random-id.ts";
import type { Services } from "../core/services/services.ts";
import type { Viewer } from "../visibility/viewer.ts";
import { type AgentJobRef, parseAgentJobId } from "./agent-job.ts";
import { type AgentJob, offeredJobs } from "./list-agent-jobs.ts";
import { readBudget } from "./usage-budget.ts";

const MINUTE_MS = 60_000;
/** A lease's length unless the agent asks for another (docs/agents.md). */
export const DEFAULT_LEASE_MINUTES = 60;

/**
 * accept_agent_job: a lease of the caller on a job offered to them now, until `now +
 * lease_minutes`; accepting a job the caller already leases renews the lease (same lease_id).
 * The lease is bookkeeping among the user's agents: it neither claims the seat nor starts an
 * Attempt, and `next_steps` names the call that does. Refused past the budget
 * (budget_exhausted) and for a job no longer offered (job_unavailable).
 */
export async function acceptAgentJob(
  services: Services,
  viewer: Viewer,
  input: { job_id: string; lease_minutes?: number | undefined },
  baseUrl: string,
) {
  const ref = parseAgentJobId(input.job_id);
  const now = services.clock();
  const budget = await readBudget(services.sql, viewer.userId, now);
  if (budget.exhausted) {
    throw new ServiceError(
      "budget_exhausted",
      `your agent usage budget is used up${budget.resets_at ? ` until ${budget.resets_at}` : ""}: wait for the reset or raise it with set_usage_reset`,
      { resets_at: budget.resets_at, used: budget.used },
    );
  }
  // Narrowed to the job's Problem (or Attempt), so the job is found however many others are offered.
  const problemId =
    ref.kind === "solve"
      ? ref.problem_id
      : ref.kind === "continuation"
        ? undefined
        : ((
            await services.sql<{ problem_id: string | null }[]>`
              select problem_id from review_processes where id = ${ref.review_process_id}`
          )[0]?.problem_id ?? undefined);
  const offered = await offeredJobs(
    services,
    viewer,
    {
      kinds: [ref.kind],
      limit: 200,
      ...(problemId && { problemId }),
      ...(ref.kind === "continuation" && { attemptId: ref.attempt_id }),
    },
    baseUrl,
  );
  const job = offered.find((candidate) => candidate.job_id === input.job_id);
  if (!job) {
    throw new ServiceError(
      "job_unavailable",
      `job ${input.job_id} is not offered to you now (the seat was taken, closed or passed its deadline, the want was withdrawn, or the Attempt was continued): call list_agent_jobs`,
      { job_id: input.job_id },
    );
  }
  const expiresAt = new Date(now.getTime() + (input.lease_minutes ?? DEFAULT_LEASE_MINUTES) * MINUTE_MS);
  const [lease] = await services.sql<{ id: string; accepted_at: Date; expires_at: Date }[]>`
    insert into agent_job_leases (id, user_id, job_id, kind, accepted_at, expires_at)
    values (${randomId(IdPrefix.agentJobLease)}, ${viewer.userId}, ${job.job_id}, ${job.kind}, ${now}, ${expiresAt})
    on conflict (user_id, job_id) do update set accepted_at = excluded.accepted_at, expires_at = excluded.expires_at
    returning id, accepted_at, expires_at`;
  const leaseView = {
    lease_id: lease!.id,
    job_id: job.job_id,
    kind: job.kind,
    accepted_at: lease!.accepted_at.toISOString(),
    expires_at: lease!.expires_at.toISOString(),
  };
  const next_steps = nextSteps(ref, job);
  return {
    lease: leaseView,
    job: {
      ...job,
      lease: {
        lease_id: leaseView.lease_id,
        accepted_at: leaseView.accepted_at,
        expires_at: leaseView.expires_at,
      },
    },
    next_steps,
  };
}

/** The calls that do the job a lease is for (the lease itself claims and starts nothing). */
function nextSteps(ref: AgentJobRef, job: AgentJob): string[] {
  const report = `report_agent_usage {"job_id": "${job.job_id}", ...} when done`;
  switch (ref.kind) {
    case "review_seat":
      return [
        `claim_review {"review_process_id": "${ref.review_process_id}", "node_id": "${ref.node_id}"} takes the seat`,
        "submit_review_response with assistance {provider, model} when an agent helped",
        report,
      ];
    case "solve":
      return [
        `start_attempt {"problem": "${ref.problem_id}"} (or continue your active Attempt on it)`,
        report,
      ];
    case "continuation":
      return [
        `start_attempt {"problem": "${job.problem_id}", "continues_attempt_id": "${ref.attempt_id}"} continues it; its \`continues\` carries the review's evidence`,
        "reuse_artifact carries the ended Attempt's Artifacts into the continuation",
        report,
      ];
  }
}
