import { ServiceError } from "../core/errors/service-error.ts";
import type { Services } from "../core/services/services.ts";
import { readBudget } from "./usage-budget.ts";

/** set_usage_reset's input, validated. */
export interface SetUsageResetInput {
  resets_at: string;
  period_hours?: number | null | undefined;
  token_budget?: number | null | undefined;
  cost_budget_usd?: number | null | undefined;
}

/**
 * set_usage_reset: when the caller's agent budget window resets, optionally every `period_hours`
 * after, and its limits (null or absent: no limit). A new window starts now, so usage reported
 * before this call no longer counts.
 */
export async function setUsageReset(services: Services, userId: string, input: SetUsageResetInput) {
  const now = services.clock();
  const resetsAt = new Date(input.resets_at);
  if (!(resetsAt > now)) {
    throw new ServiceError(
      "invalid_input",
      `resets_at must be later than now (${now.toISOString()}): give the next instant the budget renews`,
      { field: "resets_at" },
    );
  }
  await services.sql`
    insert into agent_budgets (user_id, token_budget, cost_budget_usd, window_started_at, resets_at, period_hours, updated_at)
    values (${userId}, ${input.token_budget ?? null}, ${input.cost_budget_usd ?? null}, ${now}, ${resetsAt},
      ${input.period_hours ?? null}, ${now})
    on conflict (user_id) do update set token_budget = excluded.token_budget, cost_budget_usd = excluded.cost_budget_usd,
      window_started_at = excluded.window_started_at, resets_at = excluded.resets_at,
      period_hours = excluded.period_hours, updated_at = excluded.updated_at`;
  return { budget: await readBudget(services.sql, userId, now) };
}
