import type { Plan } from "@svc/schemas";
import { hashJson } from "../hash/sha256.ts";

/**
 * `plan_hash`: sha256 of the RFC 8785 canonical JSON of the plan. File enumeration order, JSON
 * whitespace and key order cannot change it; any semantic change does.
 */
export function planHash(plan: Plan): string {
  return hashJson(plan);
}
