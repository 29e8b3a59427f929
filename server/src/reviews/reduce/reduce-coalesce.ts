import type { ReduceOutcome } from "@svc/schemas";
import type { Reduction, ReductionStep } from "../reduction.ts";

/** One input of a coalesce node: a reduce node's outcome, null when that node was skipped. */
export interface CoalesceInput {
  node_id: string;
  outcome: ReduceOutcome | null;
}

/**
 * coalesce (spec 2.1): the first resolved outcome (accept or reject) among `inputs`, in their
 * priority order; a skipped input (null, its `when` did not hold) or an unresolved one is passed
 * over, and when none is resolved the result is unresolved. Outcomes are looked up by node id,
 * so their order in `outcomes` does not matter; an input with no entry counts as skipped.
 * Steps stop at the input taken: the later ones were not read.
 */
export function reduceCoalesce(inputs: readonly string[], outcomes: readonly CoalesceInput[]): Reduction {
  const byId = new Map<string, ReduceOutcome | null>();
  for (const entry of outcomes) if (!byId.has(entry.node_id)) byId.set(entry.node_id, entry.outcome);

  const steps: ReductionStep[] = [];
  const done = (outcome: ReduceOutcome, description: string): Reduction => {
    steps.push({ description, source: null, value: outcome });
    return { op: "coalesce", inputs: [...inputs], steps, outcome };
  };
  for (const [i, id] of inputs.entries()) {
    const outcome = byId.get(id) ?? null;
    const place = `input ${i + 1} of ${inputs.length}`;
    if (outcome === "accept" || outcome === "reject") {
      steps.push({
        description: `${id} (${place}) emitted ${outcome}: the first resolved outcome`,
        source: id,
        value: outcome,
      });
      return done(outcome, `${outcome}, from ${id}`);
    }
    steps.push({
      description:
        outcome === null
          ? `${id} (${place}) was skipped and emitted nothing: passed over`
          : `${id} (${place}) emitted unresolved: passed over`,
      source: id,
      value: outcome,
    });
  }
  return done("unresolved", "no input emitted accept or reject: unresolved");
}
