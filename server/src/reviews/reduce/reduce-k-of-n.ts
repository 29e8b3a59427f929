import type { KOfNConfig, Predicate, ReduceOutcome } from "@svc/schemas";
import type { Reduction, ReductionStep, ReviewJudgment } from "../reduction.ts";
import { jsonEqual } from "./json-equal.ts";
import { readField, showValue } from "./read-field.ts";

/**
 * k_of_n (spec 2.1): reads `config.field` at the top level of each response; accept when at
 * least `accept.k` responses match the accept predicate, reject when at least `reject.k` match
 * the reject predicate, otherwise unresolved. A response without the field matches neither.
 *
 * Rule 13 (accept.k + reject.k > reviewer count, disjoint value sets) makes both outcomes
 * impossible for a linted protocol; the function is total anyway, and when both would hold it
 * answers unresolved, the safe answer that neither passes nor refutes, and says so in a step.
 * Counting makes the result independent of judgment order; steps follow the given order.
 */
export function reduceKOfN(
  inputs: readonly string[],
  config: KOfNConfig,
  judgments: readonly ReviewJudgment[],
): Reduction {
  const steps: ReductionStep[] = [];
  let accepts = 0;
  let rejects = 0;
  for (const judgment of judgments) {
    const read = readField(judgment.response, config.field);
    const source = judgment.assignment_id;
    if (!read.found) {
      steps.push({
        description: `response of ${source} has no ${config.field}: matches neither`,
        source,
        value: null,
      });
      continue;
    }
    const toAccept = matches(config.accept.predicate, read.value);
    const toReject = matches(config.reject.predicate, read.value);
    if (toAccept) accepts += 1;
    if (toReject) rejects += 1;
    const verdict = toAccept && toReject ? "both" : toAccept ? "accept" : toReject ? "reject" : "neither";
    steps.push({
      description: `response of ${source} has ${config.field} = ${showValue(read.value)}: matches ${verdict}`,
      source,
      value: read.value,
    });
  }

  const acceptHolds = accepts >= config.accept.k;
  const rejectHolds = rejects >= config.reject.k;
  steps.push(countStep("accept", accepts, judgments.length, config.accept.predicate, config.accept.k));
  steps.push(countStep("reject", rejects, judgments.length, config.reject.predicate, config.reject.k));

  let outcome: ReduceOutcome;
  let description: string;
  if (acceptHolds && rejectHolds) {
    outcome = "unresolved";
    description =
      "accept and reject both hold, which rule 13 rules out for a valid protocol; the safe answer is unresolved";
  } else if (acceptHolds) {
    outcome = "accept";
    description = "accept holds and reject does not: accept";
  } else if (rejectHolds) {
    outcome = "reject";
    description = "reject holds and accept does not: reject";
  } else {
    outcome = "unresolved";
    description = "neither accept nor reject holds: unresolved";
  }
  steps.push({ description, source: null, value: outcome });
  return { op: "k_of_n", inputs: [...inputs], steps, outcome };
}

/** `eq`: JSON equality with the value; `in`: membership in the value's array. Anything else matches nothing. */
function matches(predicate: Predicate, value: unknown): boolean {
  switch (predicate.op) {
    case "eq":
      return jsonEqual(value, predicate.value);
    case "in":
      return Array.isArray(predicate.value) && predicate.value.some((item) => jsonEqual(value, item));
    default: {
      const never: never = predicate.op;
      throw new Error(`Unhandled predicate op: ${String(never)}`);
    }
  }
}

function countStep(
  side: "accept" | "reject",
  count: number,
  total: number,
  predicate: Predicate,
  k: number,
): ReductionStep {
  const holds = count >= k;
  return {
    description: `${count} of ${total} responses match ${side} (${predicate.op} ${showValue(predicate.value)}); ${side} needs ${k}: ${holds ? "holds" : "does not hold"}`,
    source: null,
    value: count,
  };
}
