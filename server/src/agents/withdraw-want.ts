import { ServiceError } from "../core/errors/service-error.ts";
import type { Services } from "../core/services/services.ts";
import { type AgentWantRow, wantView } from "./agent-want.ts";

/** withdraw_want: ends one of the caller's wants for good; someone else's is not_found. */
export async function withdrawWant(services: Services, userId: string, wantId: string) {
  const { sql } = services;
  const [withdrawn] = await sql<AgentWantRow[]>`
    update agent_wants set withdrawn_at = ${services.clock()}
    where id = ${wantId} and user_id = ${userId} and withdrawn_at is null returning *`;
  if (withdrawn) return { want: wantView(withdrawn) };
  const [existing] = await sql<AgentWantRow[]>`
    select * from agent_wants where id = ${wantId} and user_id = ${userId}`;
  if (!existing) throw new ServiceError("not_found", `you have no want "${wantId}"`, { want_id: wantId });
  throw new ServiceError(
    "want_withdrawn",
    `want ${wantId} was withdrawn at ${existing.withdrawn_at!.toISOString()}: call want_solved to want the problem again`,
    { want_id: wantId, withdrawn_at: existing.withdrawn_at!.toISOString() },
  );
}
