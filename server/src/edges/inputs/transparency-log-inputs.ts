import { z } from "zod";

/** A position or size in the transparency log: a whole number (query strings are coerced). */
const logNumber = (what: string) =>
  z.coerce
    .number()
    .int(`must be a whole number: ${what}`)
    .min(0, `must be 0 or more: ${what}`)
    .max(Number.MAX_SAFE_INTEGER, `is too large: ${what}`);

export const logIndex = logNumber("the entry's log_index").describe(
  "An entry's position in the log, from 0.",
);
export const treeSize = logNumber("the size of a published checkpoint").describe(
  "The size of a published checkpoint; default the newest.",
);
export const fromSize = logNumber("the size of the earlier checkpoint you saw").describe(
  "The size of an earlier checkpoint, for a consistency proof from it.",
);

/** get_transparency_log's input: the newest (or a given) checkpoint, and the proofs asked for. */
export const transparencyLogInput = z.strictObject({
  tree_size: treeSize.optional(),
  log_index: logIndex.optional().describe("Also return this entry's leaf hash and inclusion proof."),
  from_size: fromSize.optional(),
});
