import { IdPrefix, idPattern } from "@svc/schemas";
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

/** A VerifierImplementation id (`GET /api/verifier-implementations/{id}/program`). */
export const verifierImplementationId = z
  .string()
  .regex(
    idPattern(IdPrefix.verifierImplementation),
    "must be a VerifierImplementation id: vfi_ and 10 to 32 characters of 0-9 and a-z",
  )
  .describe("The VerifierImplementation id (vfi_...).");
