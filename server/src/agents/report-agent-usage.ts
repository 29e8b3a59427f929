import { IdPrefix } from "@svc/schemas";
import { ServiceError } from "../core/errors/service-error.ts";
import { randomId } from "../core/ids/random-id.ts";
import type { Services } from "../core/services/services.ts";
import { readBudget } from "./usage-budget.ts";

/** report_agent_usage's input, validated. */
export interface ReportAgentUsageInput {
  job_id: string;
  input_tokens: number;
  output_tokens: number;
  cost_usd: number;
  duration_ms: number;
  model?: string | undefined;
}

/**
 * report_agent_usage: records what a job the caller leased cost (tokens, cost, duration),
 * counted against the budget window it is reported in; the lease may have expired. A job the
 * caller never leased is not_found.
 */
export async function reportAgentUsage(services: Services, userId: string, input: ReportAgentUsageInput) {
  const { sql } = services;
  const [lease] = await sql<{ id: string }[]>`
    select id from agent_job_leases where user_id = ${userId} and job_id = ${input.job_id}`;
  if (!lease) {
    throw new ServiceError(
      "not_found",
      `you hold no lease on job ${input.job_id}: report usage for a job you accepted with accept_agent_job`,
      { job_id: input.job_id },
    );
  }
  const now = services.clock();
  const id = randomId(IdPrefix.agentUsage);
  await sql`
    insert into agent_usage (id, user_id, lease_id, job_id, input_tokens, output_tokens, cost_usd, duration_ms, model, reported_at)
    values (${id}, ${userId}, ${lease.id}, ${input.job_id}, ${input.input_tokens}, ${input.output_tokens},
      ${input.cost_usd}, ${input.duration_ms}, ${input.model ?? null}, ${now})`;
  return {
    usage: {
      usage_id: id,
      job_id: input.job_id,
      lease_id: lease.id,
      input_tokens: input.input_tokens,
      output_tokens: input.output_tokens,
      cost_usd: input.cost_usd,
      duration_ms: input.duration_ms,
      model: input.model ?? null,
      reported_at: now.toISOString(),
    },
    budget: await readBudget(sql, userId, now),
  };
}
