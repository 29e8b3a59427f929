import type { ReduceOutcome, ThresholdConfig } from "@svc/schemas";
import type { Reduction, ReductionStep, ReviewJudgment } from "../reduction.ts";
import { aggregateValues } from "./aggregate-values.ts";
import { readField, showValue } from "./read-field.ts";

/**
 * threshold (spec 2.1): aggregates the numeric values of `config.field` (mean, median, min,
 * max); accept when the aggregate >= accept_gte, reject when it is < reject_lt, unresolved
 * between them and when no response has a numeric value. Non-numeric values are passed over.
 * Should both hold (reject_lt above accept_gte, which rule 14 forbids) the answer is unresolved.
 */
export function reduceThreshold(
  inputs: readonly string[],
  config: ThresholdConfig,
  judgments: readonly ReviewJudgment[],
): Reduction {
  const steps: ReductionStep[] = [];
  const values: number[] = [];
  for (const judgment of judgments) {
    const read = readField(judgment.response, config.field);
    const source = judgment.assignment_id;
    if (!read.found) {
      steps.push({
        description: `response of ${source} has no ${config.field}: not counted`,
        source,
        value: null,
      });
    } else if (typeof read.value === "number" && Number.isFinite(read.value)) {
      values.push(read.value);
      steps.push({
        description: `response of ${source} has ${config.field} = ${showValue(read.value)}: counted`,
        source,
        value: read.value,
      });
    } else {
      steps.push({
        description: `response of ${source} has ${config.field} = ${showValue(read.value)}: not a number, not counted`,
        source,
        value: read.value,
      });
    }
  }

  const done = (outcome: ReduceOutcome, description: string): Reduction => {
    steps.push({ description, source: null, value: outcome });
    return { op: "threshold", inputs: [...inputs], steps, outcome };
  };
  if (values.length === 0) {
    return done("unresolved", `no response has a numeric ${config.field}: unresolved`);
  }

  const aggregate = aggregateValues(config.aggregate, values);
  const sorted = [...values].sort((a, b) => a - b);
  steps.push({
    description: `${config.aggregate} of ${showValue(sorted)} = ${showValue(aggregate)}`,
    source: null,
    value: aggregate,
  });
  const acceptHolds = aggregate >= config.accept_gte;
  const rejectHolds = aggregate < config.reject_lt;
  const shown = showValue(aggregate);
  if (acceptHolds && rejectHolds) {
    return done(
      "unresolved",
      `${shown} is both >= accept_gte ${config.accept_gte} and < reject_lt ${config.reject_lt}, which rule 14 rules out for a valid protocol; the safe answer is unresolved`,
    );
  }
  if (acceptHolds) return done("accept", `${shown} >= accept_gte ${config.accept_gte}: accept`);
  if (rejectHolds) return done("reject", `${shown} < reject_lt ${config.reject_lt}: reject`);
  return done(
    "unresolved",
    `${shown} is below accept_gte ${config.accept_gte} and not below reject_lt ${config.reject_lt}: unresolved`,
  );
}
