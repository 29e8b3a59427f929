import { IdPrefix } from "@svc/schemas";
import { randomId } from "../core/ids/random-id.ts";
import type { Services } from "../core/services/services.ts";
import { readProblem } from "../problems/read-problem.ts";
import type { Viewer } from "../visibility/viewer.ts";
import { type AgentWantRow, wantView } from "./agent-want.ts";

/**
 * want_solved: the caller wants their agents to solve a Problem they may read; list_agent_jobs
 * offers it as a `solve` job while the want stands. Wanting it again returns the standing want.
 */
export async function wantSolved(
  services: Services,
  viewer: Viewer,
  input: { problem: string; note_md?: string | undefined },
) {
  const { sql } = services;
  const problem = await readProblem(sql, viewer, input.problem);
  const [row] = await sql<AgentWantRow[]>`
    insert into agent_wants (id, user_id, problem_id, note_md, created_at)
    values (${randomId(IdPrefix.agentWant)}, ${viewer.userId}, ${problem.id}, ${input.note_md ?? null}, ${services.clock()})
    on conflict (user_id, problem_id) where withdrawn_at is null do nothing
    returning *`;
  if (row) return { want: wantView(row) };
  const [standing] = await sql<AgentWantRow[]>`
    select * from agent_wants where user_id = ${viewer.userId} and problem_id = ${problem.id} and withdrawn_at is null`;
  return { want: wantView(standing!) };
}
