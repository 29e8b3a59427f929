import { IdPrefix, idPattern, ProblemStatus, Structure } from "@svc/schemas";
import { z } from "zod";

/**
 * Input fields the discovery tools and `GET /api/problems` share, so a limit or an order is
 * checked by one rule whichever door the request comes through.
 */

/** Accepted on every read tool (spec 4.1) and ignored until Attempts exist. */
export const workingAttemptId = z
  .string()
  .regex(idPattern(IdPrefix.attempt), "must be an Attempt id: att_ and 10 to 32 characters of 0-9 and a-z")
  .optional()
  .describe("Your own Attempt this read is for, if any.");

/** What every read takes besides its own fields; the whole input of a read that names nothing else. */
export const readOptions = z.strictObject({ working_attempt_id: workingAttemptId });

/** The largest value of an `integer` column: a larger number is refused, never sent to PostgreSQL. */
export const MAX_INT4 = 2_147_483_647;

/** A Problem's revision number (an `integer` column): 1 to 2,147,483,647. */
export const revisionNumber = z.number().int().min(1).max(MAX_INT4);

/** A page size: 1 to 200, default 50 (spec 8, Discovery). */
export const pageLimit = z
  .number()
  .int()
  .min(1)
  .max(200)
  .default(50)
  .describe("Page size, 1 to 200 (default 50).");

/** An opaque cursor from a previous page. */
export const pageCursor = z
  .string()
  .min(1)
  .max(4096)
  .optional()
  .describe("The cursor a previous page returned; omit for the first page.");

/** A Problem's structure. */
export const structureField = z.enum(Structure);

/** Narrows a listing to one Campaign. */
export const campaignFilter = z
  .string()
  .min(1)
  .max(64)
  .optional()
  .describe("Only Problems of this Campaign (slug or cmp_ id).");

/** The search_problems input; `GET /api/problems` takes its fields as query parameters (`q` for query). */
export const searchProblemsInput = z.strictObject({
  query: z
    .string()
    .max(1000)
    .optional()
    .describe('Words to find in title, summary and statement; web-search syntax ("a phrase", -exclude, or).'),
  campaign: campaignFilter,
  structure: structureField.optional().describe("Only Problems of this structure."),
  status: z.enum(ProblemStatus).default("open").describe("open (default) or archived."),
  standalone: z
    .boolean()
    .optional()
    .describe("true: only Problems outside any Campaign; false: only Campaign Problems."),
  order: z
    .enum(["priority", "random", "least_attempted"])
    .default("priority")
    .describe(
      "priority (default; with a query, best match first), random (stable across pages), least_attempted.",
    ),
  limit: pageLimit,
  cursor: pageCursor,
  working_attempt_id: workingAttemptId,
});

/** The get_problem input; `GET /api/problems/{problem}` takes `problem` in its path, the rest as query parameters. */
/** get_leaderboard's input; `GET /api/problems/{problem}/leaderboard` takes `revision` as a query parameter. */
export const getLeaderboardInput = z.strictObject({
  problem: z.string().min(1).max(64).describe("The Problem's slug or prb_ id."),
  revision: revisionNumber.optional().describe("A revision number; default the current one."),
  working_attempt_id: workingAttemptId,
});

export const getProblemInput = z.strictObject({
  problem: z.string().min(1).max(64).describe("The Problem's slug or prb_ id."),
  revision: revisionNumber.optional().describe("A revision number; default the current one."),
  working_attempt_id: workingAttemptId,
});
