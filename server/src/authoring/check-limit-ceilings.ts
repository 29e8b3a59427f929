import type { CheckerLimits } from "@svc/app";
import type { Plan, ValidationError } from "@svc/schemas";
import { contractFile } from "./package-files.ts";

/** The environment variable that sets each limit's ceiling. */
const CEILING_SETTING: Record<keyof CheckerLimits, string> = {
  vcpu: "SVC_MAX_VCPU",
  memory_mb: "SVC_MAX_MEMORY_MB",
  disk_mb: "SVC_MAX_DISK_MB",
  timeout_seconds: "SVC_MAX_TIMEOUT_SECONDS",
};

/**
 * Holds every planned implementation's limits to this deployment's ceilings (SVC_MAX_*): a
 * package may ask for what spec 2.2 allows, but a host runs only what its operator allows.
 * One `unsupported_runtime` error per stage and field, naming the field, the value and the ceiling.
 */
export function checkLimitCeilings(
  plan: Plan,
  ceilings: CheckerLimits,
  has: (path: string) => boolean,
): ValidationError[] {
  const errors: ValidationError[] = [];
  for (const implementation of Object.values(plan.verifier_implementations)) {
    const limits = implementation.limits as CheckerLimits;
    for (const field of Object.keys(CEILING_SETTING) as (keyof CheckerLimits)[]) {
      const value = limits[field];
      const ceiling = ceilings[field];
      if (!(value > ceiling)) continue;
      for (const stage of implementation.stages) {
        const contract = plan.verifier_contracts[stage.verifier_contract]?.document;
        const index = contract?.stages.findIndex((candidate) => candidate.key === stage.stage_key) ?? -1;
        errors.push({
          file: contractFile(plan, stage.verifier_contract, has),
          path: index >= 0 ? `/stages/${index}/limits/${field}` : "",
          code: "unsupported_runtime",
          message: `stage ${stage.stage_key} asks for limits.${field} ${value}, over this service's ceiling of ${ceiling} (${CEILING_SETTING[field]}): set ${field} to ${ceiling} or less`,
        });
      }
    }
  }
  return errors;
}
