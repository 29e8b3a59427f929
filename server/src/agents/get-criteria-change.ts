import { ServiceError } from "../core/errors/service-error.ts";
import type { Services } from "../core/services/services.ts";
import { CRITERIA_CHANGE_SELECT, type CriteriaChangeRow, criteriaChangeView } from "./criteria-change.ts";

/** get_criteria_change: one of the caller's criteria changes; anyone else's is not_found. */
export async function getCriteriaChange(services: Services, userId: string, criteriaChangeId: string) {
  const { sql } = services;
  const [row] = await sql<CriteriaChangeRow[]>`
    ${sql.unsafe(CRITERIA_CHANGE_SELECT)} where cc.id = ${criteriaChangeId} and cc.user_id = ${userId}`;
  if (!row) {
    throw new ServiceError("not_found", `you have no criteria change "${criteriaChangeId}"`, {
      criteria_change_id: criteriaChangeId,
    });
  }
  return { criteria_change: criteriaChangeView(row) };
}
