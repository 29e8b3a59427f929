import type { Sql } from "../core/db/connect-sql.ts";

const HOUR_MS = 3600_000;

/** A user's agent_budgets row; numeric and bigint columns arrive as decimal strings. */
export interface BudgetRow {
  token_budget: string | null;
  cost_budget_usd: string | null;
  window_started_at: Date;
  resets_at: Date;
  period_hours: number | null;
}

/** The budget window in force at `now`: from the last reset (or when limits were set) to the next. */
export function budgetWindow(row: BudgetRow, now: Date): { start: Date; resetsAt: Date | null } {
  if (now < row.resets_at) return { start: row.window_started_at, resetsAt: row.resets_at };
  if (row.period_hours === null) return { start: row.resets_at, resetsAt: null };
  const period = row.period_hours * HOUR_MS;
  const passed = Math.floor((now.getTime() - row.resets_at.getTime()) / period);
  const start = new Date(row.resets_at.getTime() + passed * period);
  return { start, resetsAt: new Date(start.getTime() + period) };
}

/** The budget as the tools report it. */
export interface BudgetView {
  token_budget: number | null;
  cost_budget_usd: number | null;
  window_started_at: string | null;
  resets_at: string | null;
  period_hours: number | null;
  used: { tokens: number; cost_usd: number; duration_ms: number };
  exhausted: boolean;
}

/**
 * The user's budget at `now` with what the current window used: the reports since the window
 * began. Exhausted when the tokens or the cost reach a limit; a user with no budget has none.
 */
export async function readBudget(sql: Sql, userId: string, now: Date): Promise<BudgetView> {
  const [row] = await sql<BudgetRow[]>`
    select token_budget::text as token_budget, cost_budget_usd::text as cost_budget_usd, window_started_at,
      resets_at, period_hours
    from agent_budgets where user_id = ${userId}`;
  const window = row ? budgetWindow(row, now) : null;
  const [used] = await sql<{ tokens: string; cost_usd: string; duration_ms: string }[]>`
    select coalesce(sum(input_tokens + output_tokens), 0)::text as tokens, coalesce(sum(cost_usd), 0)::text as cost_usd,
      coalesce(sum(duration_ms), 0)::text as duration_ms
    from agent_usage where user_id = ${userId}
      ${window ? sql`and reported_at >= ${window.start}` : sql``}`;
  const tokens = Number(used!.tokens);
  const cost = Number(used!.cost_usd);
  const tokenBudget = row?.token_budget != null ? Number(row.token_budget) : null;
  const costBudget = row?.cost_budget_usd != null ? Number(row.cost_budget_usd) : null;
  return {
    token_budget: tokenBudget,
    cost_budget_usd: costBudget,
    window_started_at: window?.start.toISOString() ?? null,
    resets_at: window?.resetsAt?.toISOString() ?? null,
    period_hours: row?.period_hours ?? null,
    used: { tokens, cost_usd: cost, duration_ms: Number(used!.duration_ms) },
    exhausted: (tokenBudget !== null && tokens >= tokenBudget) || (costBudget !== null && cost >= costBudget),
  };
}
