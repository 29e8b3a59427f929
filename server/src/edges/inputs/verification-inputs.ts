import { IdPrefix, idPattern, RedactionReason } from "@svc/schemas";
import { z } from "zod";
import { workingAttemptId } from "./discovery-inputs.ts";

/**
 * Input fields the verification tools and the `/api` verification routes share, so an id is
 * checked by one rule whichever door the request comes through.
 */

/** A VerificationRun id. */
export const verificationRunId = z
  .string()
  .regex(
    idPattern(IdPrefix.verificationRun),
    "must be a VerificationRun id: vrn_ and 10 to 32 characters of 0-9 and a-z",
  )
  .describe("The VerificationRun id (vrn_...).");

/** The get_verification input; `GET /api/verifications/{id}` takes the run id in its path. */
export const getVerificationInput = z.strictObject({
  verification_run_id: verificationRunId,
  working_attempt_id: workingAttemptId,
});

/** A Submission id (rerun_verification, start_manual_verification). */
export const submissionId = z
  .string()
  .regex(
    idPattern(IdPrefix.submission),
    "must be a Submission id: sub_ and 10 to 32 characters of 0-9 and a-z",
  );

/** A VerifierImplementation id (`GET /api/verifier-implementations/{id}/program`). */
export const verifierImplementationId = z
  .string()
  .regex(
    idPattern(IdPrefix.verifierImplementation),
    "must be a VerifierImplementation id: vfi_ and 10 to 32 characters of 0-9 and a-z",
  )
  .describe("The VerifierImplementation id (vfi_...).");

/** Why a maintainer or operator acts (a yank, a revocation): Markdown, 1 to 10,000 characters. */
export const reasonMd = z
  .string()
  .min(1, "must say why: 1 to 10000 characters of Markdown")
  .max(10_000, "must be at most 10000 characters")
  .describe("Why, in Markdown (1 to 10000 characters); kept with the record and shown to its readers.");

/** Why an operator redacts a stage log (spec 2.4 `log.redaction.reason`). */
export const redactionReason = z
  .enum(Object.values(RedactionReason) as [RedactionReason, ...RedactionReason[]], {
    error: "must be secret_material, personal_data or legal_requirement",
  })
  .describe("secret_material, personal_data or legal_requirement.");

/** A Contract stage key (`^[a-z0-9]+(_[a-z0-9]+)*$`, at most 40 characters). */
export const stageKey = z
  .string()
  .max(40, "must be at most 40 characters")
  .regex(/^[a-z0-9]+(_[a-z0-9]+)*$/, "must be a stage key: lowercase letters and digits joined by single _")
  .describe("A stage key of the Contract (e.g. check_answer).");

/** A checker program's filename, as `checkers/<stage_key>/<filename>` names it. */
export const programFilename = z
  .string()
  .min(1)
  .max(255)
  .regex(/^[^/\\]+$/, "must be a file name without a path")
  .describe("The program's filename (e.g. checker.py).");
