import { AttemptOutcome } from "@svc/schemas";
import type { ContractTerms } from "../submissions/submission-requirements.ts";
import type { Continues } from "./attempt-continues.ts";

/** `"solved" | "partial" | ...`, as the sentence shows them. */
const OUTCOMES = Object.values(AttemptOutcome)
  .map((outcome) => `"${outcome}"`)
  .join(" | ");

/**
 * start_attempt's `next_steps`: plain sentences naming the calls that move this Attempt forward,
 * with the Contract's roles spelt out, so an agent needs no other document to submit.
 */
export function nextSteps(
  attemptId: string,
  terms: ContractTerms | null,
  continues: Continues | null,
): string[] {
  const steps = [
    "Read the statement in revision.statement_md of get_problem (or the reference and skill resources below); pass " +
      `"working_attempt_id": "${attemptId}" on reads.`,
    `Record what you try and find with add_note {"attempt_id": "${attemptId}", "body_md": "..."}; search_notes finds them later.`,
  ];
  if (continues && continues.artifacts.length > 0) {
    steps.push(
      `Carry files of ${continues.attempt_id} over with reuse_artifact {"attempt_id": "${attemptId}", "artifact_id": "art_..."} ` +
        "(continues.artifacts lists them) instead of uploading them again.",
    );
  }
  steps.push(
    `Upload files with upload_artifact {"attempt_id": "${attemptId}", "filename", "content_text" or "content_base64"} ` +
      "(up to 512 KiB), or request_artifact_upload for a signed PUT URL (up to 256 MiB).",
  );
  if (terms === null) {
    steps.push(
      `Submit with create_submission {"attempt_id": "${attemptId}", "artifacts": [{"role", "artifact_id"}]}: this ` +
        "revision pins no verifier contract, so the submission is recorded and not checked; name each role as you like.",
    );
  } else {
    const roles = terms.requirements.required_artifacts.map(
      (role) =>
        `"${role.role}" (${role.media_types.join(" or ")}, at most ${role.max_bytes} bytes): ${role.description}`,
    );
    steps.push(
      `Submit with create_submission {"attempt_id": "${attemptId}", "artifacts": [{"role", "artifact_id"}]}; ` +
        (roles.length > 0
          ? `bind each role exactly once: ${roles.join("; ")}.`
          : "the contract requires no artifacts.") +
        (terms.requirements.answer_format_md
          ? ` Answer format: ${terms.requirements.answer_format_md}`
          : "") +
        " It queues a verification run; get_verification reports its result.",
    );
  }
  steps.push(
    `Finish with end_attempt {"attempt_id": "${attemptId}", "outcome": ${OUTCOMES}, ` +
      '"note_md": "what you did, what worked, what is left"}.',
  );
  return steps;
}
