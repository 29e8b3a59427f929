import { AttemptStatus, ErrorCode, ProblemStatus, RunStatus, Structure } from "@svc/schemas";
import { z } from "zod";
import { searchProblemsInput } from "../inputs/discovery-inputs.ts";

/**
 * The answers of the `/api` routes as zod schemas: each route declares them, fastify serializes
 * through them, and the OpenAPI document shows them. They name the fields a client relies on and
 * let the rest through (loose objects), so a field the domain adds is served before it is
 * documented rather than dropped. Schemas with an `id` (zod's global registry, where the inputs'
 * descriptions live too) become `components.schemas` entries; no MCP tool input uses them.
 */

/** `{error: {code, message, ...details}}`, the wire form of every error (server/src/core/errors). */
export const errorEnvelope = z
  .strictObject({
    error: z.looseObject({
      code: z.enum(Object.keys(ErrorCode) as [keyof typeof ErrorCode]),
      message: z.string().describe("What was wrong and how to fix it."),
      field: z.string().optional().describe("The input field at fault, when one is."),
    }),
  })
  .meta({
    id: "Error",
    description: "Every error: a catalogued code, a message that says what to fix, and structured details.",
  });

/** The error answers every authenticated `/api` read can give besides its own. */
export const readErrors = {
  400: errorResponse("invalid_input: a parameter breaks a rule; the message names it and the fix."),
  401: errorResponse("unauthorized: no live bearer token (WWW-Authenticate says where to get one)."),
  403: errorResponse("forbidden: the token lacks the read scope."),
  404: errorResponse("not_found: nothing by that name that this caller may read."),
} as const;

/** An error answer, documented with what it means on this route. */
export function errorResponse(description: string) {
  return { description, content: { "application/json": { schema: errorEnvelope } } };
}

/**
 * A JSON answer, documented with what it is. Typed as any object for the handler: the domain's
 * interfaces have no index signature, so they would not match a loose object's type; fastify
 * still serializes through the schema, so an answer missing a declared field fails loudly.
 */
export function jsonResponse(description: string, schema: z.ZodType<object>) {
  return { description, content: { "application/json": { schema } } };
}

/** The canonical Problem (server/src/problems/problem.ts). */
export const problemRecord = z
  .looseObject({
    id: z.string(),
    slug: z.string(),
    title: z.string(),
    summary: z.string(),
    structure: z.enum(Structure),
    status: z.enum(ProblemStatus),
    campaign_id: z.string().nullable(),
    current_revision_id: z.string().nullable(),
    current_revision_number: z.number().int(),
  })
  .meta({ id: "Problem", description: "A Problem, as every read returns it." });

/** search_problems' answer. */
export const searchProblemsResult = z.strictObject({
  problems: z.array(problemRecord.extend({ active_attempts: z.number().int() })),
  cursor: z.string().nullable().describe("Pass back as cursor for the next page; null on the last."),
  order: searchProblemsInput.shape.order.unwrap(),
});

/** get_leaderboard's result (server/src/leaderboards/leaderboard.ts, docs/website.md). */
export const leaderboardResult = z.strictObject({
  problem_id: z.string(),
  problem_slug: z.string(),
  problem_revision_id: z.string(),
  revision_number: z.number().int(),
  metric: z.strictObject({
    name: z.string(),
    unit: z.string().nullable(),
    direction: z.enum(["higher_is_better", "lower_is_better"]),
  }),
  baseline: z.number().nullable(),
  withheld: z
    .strictObject({ because: z.enum(["score_release", "independent_entries"]), until: z.string().nullable() })
    .nullable()
    .describe(
      "Why and until when a sealed evaluation shows this reader no entry; null when nothing is withheld.",
    ),
  entries: z.array(
    z.strictObject({
      rank: z.number().int(),
      participant: z.strictObject({ user_id: z.string(), handle: z.string() }),
      score: z.number(),
      verification_run_id: z.string(),
      submission_id: z.string(),
      finished_at: z.string(),
    }),
  ),
});

/** get_problem's envelope (spec 4.1). */
export const problemEnvelope = z
  .looseObject({
    problem: problemRecord,
    revision: z.looseObject({ id: z.string(), revision_number: z.number().int() }),
    skill_resources: z.array(z.looseObject({ skill_version_id: z.string() })),
    reference_resources: z.array(z.looseObject({ key: z.string(), content_hash: z.string() })),
    attempt_summary: z.looseObject({}).nullable(),
    submission_allowance: z.looseObject({}).nullable(),
  })
  .meta({ id: "ProblemEnvelope", description: "get_problem's envelope (spec 4.1)." });

/** The VerificationRun record (server/src/verification/verification-run.ts). */
export const verificationRunRecord = z
  .looseObject({
    id: z.string(),
    submission_id: z.string(),
    problem_revision_id: z.string(),
    verifier_contract_id: z.string(),
    status: z.enum(RunStatus),
    result: z.string().nullable(),
    score: z.number().nullable(),
    stage_results: z.array(z.looseObject({ stage_key: z.string(), status: z.enum(RunStatus) })),
    created_at: z.string(),
  })
  .meta({ id: "VerificationRun", description: "A VerificationRun (spec 2.4)." });

/** A route that answers bytes: documented, never serialized (fastify sends buffers and streams as they are). */
export function bytesResponse(description: string, mediaType = "application/octet-stream") {
  return {
    description,
    content: { [mediaType]: { schema: z.string() } },
  };
}

/*
 * The results of the solving agent's tools (the default toolsets): each tool declares one as its
 * `output`, which tools/list advertises as outputSchema and its /api route serializes through.
 * They name the fields an agent relies on and stay loose, and carry no descriptions: every one
 * rides in the default tools/list, an agent's context (issue 36).
 */

const id = z.string();
const cursor = z.string().nullable();
const anyRecord = z.looseObject({});

/** The Attempt record (server/src/attempts/attempt.ts). */
export const attemptRecord = z.looseObject({ id, problem_id: id, status: z.enum(AttemptStatus) });
const noteRecord = z.looseObject({ id, attempt_id: id, kind: z.string() });
const submissionRecord = z.looseObject({ id, attempt_id: id, status: z.string() });

export const whoamiResult = z.looseObject({
  user: z.looseObject({ id, handle: z.string() }),
  scopes: z.array(z.string()),
  roles: z.array(z.string()),
});
export const listCampaignsResult = z.looseObject({
  campaigns: z.array(z.looseObject({ id, slug: z.string() })),
});
export const getCampaignResult = z.looseObject({
  campaign: z.looseObject({ id, slug: z.string() }),
  open_problems: z.array(z.looseObject({ id, slug: z.string() })),
  open_problems_cursor: cursor,
});
export const pickProblemResult = z.looseObject({
  problems: z.array(z.looseObject({ id, slug: z.string(), reason: z.string() })),
});
export const startAttemptResult = z.looseObject({
  attempt: attemptRecord,
  continues: anyRecord.nullable(),
  next_steps: z.array(z.string()),
  skill_resources: z.array(anyRecord),
  reference_resources: z.array(anyRecord),
});
export const getAttemptResult = z.looseObject({ attempt: attemptRecord });
export const endAttemptResult = z.looseObject({ attempt: attemptRecord, note: noteRecord });
export const listAttemptsResult = z.looseObject({ attempts: z.array(attemptRecord), cursor });
export const addNoteResult = z.looseObject({ note: noteRecord });
export const uploadArtifactResult = z.looseObject({
  artifact: z.looseObject({ id, content_hash: z.string() }),
});
export const createSubmissionResult = z.looseObject({
  submission: submissionRecord,
  verification_run_id: id.nullable(),
});
export const getSubmissionResult = z.looseObject({ submission: submissionRecord });
export const getVerificationResult = z.looseObject({
  verification: verificationRunRecord,
  waiting_stages: z.array(anyRecord),
  attestation_log_index: z.number().int().nullable(),
});
