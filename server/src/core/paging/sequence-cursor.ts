import { ServiceError } from "../errors/service-error.ts";

/** The largest PostgreSQL bigint: a position above it is no position any row can have. */
const BIGINT_MAX = 2n ** 63n - 1n;

/**
 * The position a sequence cursor names (the id or seq of the last row a page examined, a decimal
 * string that fits a bigint), or an `invalid_input` naming the `cursor` field with `fix` as its
 * advice. Checked here so that a cursor above 2^63-1 is bad input, not a database overflow.
 */
export function sequencePosition(cursor: string, fix: string): string {
  if (!/^(0|[1-9][0-9]{0,18})$/.test(cursor) || BigInt(cursor) > BIGINT_MAX) {
    throw new ServiceError("invalid_input", `cursor must be ${fix}`, { field: "cursor" });
  }
  return cursor;
}
