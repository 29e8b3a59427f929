import { IdPrefix, idPattern } from "@svc/schemas";
import { z } from "zod";

/**
 * The address of one bound reference input, `svc://problem-revisions/{prv}/reference/{key}` as a
 * resource and `GET /api/problem-revisions/{prv}/reference/{key}` over HTTP.
 */

/** A ProblemRevision id. */
export const problemRevisionId = z
  .string()
  .regex(
    idPattern(IdPrefix.problemRevision),
    "must be a ProblemRevision id: prv_ and 10 to 32 characters of 0-9 and a-z",
  )
  .describe("The ProblemRevision id (prv_...), as get_problem's revision.id gives it.");

/** A reference slot key (common.schema.json `key`). */
export const referenceKey = z
  .string()
  .max(40)
  .regex(
    /^[a-z0-9]+(_[a-z0-9]+)*$/,
    "must be a reference key: lowercase letters and digits in words joined by single underscores",
  )
  .describe("The reference slot's key, as the Contract names it (e.g. instance).");
