/**
 * The service's closed catalogue of error codes: what a tool error, an HTTP error body or an
 * operator command reports as `{"error": {"code", "message", ...details}}`. Codes are stable and
 * never reused; the specification's own codes (section 7) are used where it names them. Later
 * work adds codes here, each with its HTTP status and meaning.
 */
export const ErrorCode = {
  /** The request is malformed or a value breaks a rule; the message names the field and the rule. */
  invalid_input: { status: 400, meaning: "a value in the request is missing or breaks a rule" },
  /** No credential, or one that is unknown, malformed or revoked. */
  unauthorized: { status: 401, meaning: "a valid bearer token is needed" },
  /** The credential is valid but its scope, its capabilities or the user's live role do not allow this. */
  forbidden: { status: 403, meaning: "the caller may not do this" },
  /** A sealed reference input read by someone who does not manage its Problem (spec 5.7). */
  sealed: { status: 403, meaning: "the input is sealed; only the problem's managers read it before release" },
  /** A signed download whose target is withdrawn or whose bytes are no longer stored (spec 7). */
  gone: { status: 410, meaning: "the download's target is withdrawn or no longer stored" },
  /** The named record does not exist or is not visible to the caller; the service never guesses. */
  not_found: { status: 404, meaning: "no such record" },
  /** The request collides with existing state (a taken handle, a duplicate grant). */
  conflict: { status: 409, meaning: "the request conflicts with existing state" },
  /** publish_authoring_upload: the plan_hash differs from the one validation stored (spec 7). */
  stale_plan_hash: { status: 409, meaning: "the package changed since validation; validate again" },
  /** publish_authoring_upload: an affected Campaign or Problem changed since validation (spec 7). */
  stale_server_state: {
    status: 409,
    meaning: "live owner, revision or status differs from what validation saw; validate again",
  },
  /** A size over a server ceiling: an authoring upload over 64 MiB, a body over its signed limit. */
  too_large: { status: 413, meaning: "the content is larger than the ceiling the message names" },
  /** A signed URL that is malformed, not signed by this service, or expired. */
  signed_url_invalid: { status: 403, meaning: "the signed URL is invalid or expired; request a new one" },
  /** The bytes sent to a signed upload URL differ from the size or hash declared for it. */
  upload_mismatch: { status: 422, meaning: "the uploaded bytes differ from the declared size or hash" },
  /** An authoring upload is not in the state the action needs (not received yet, not validated). */
  upload_not_ready: { status: 409, meaning: "the upload has not reached the state this action needs" },
  /** Publishing an upload whose validation found errors or reconciliation conflicts. */
  upload_invalid: {
    status: 422,
    meaning: "the upload failed validation; fix the errors and conflicts named",
  },
  /** An Attempt, Note, Artifact or Submission of another user, on a Problem the caller can see (spec 7). */
  not_yours: { status: 403, meaning: "the record belongs to another user" },
  /** start_attempt: the Attempt to continue has not ended (spec 7). */
  still_active: { status: 409, meaning: "the Attempt to continue is still active; end it first" },
  /** start_attempt, reuse_artifact: the Attempt or Artifact belongs to another Problem (spec 7). */
  different_problem: { status: 409, meaning: "the Attempt or Artifact is on a different Problem" },
  /** start_attempt: the Attempt already has a continuation; continue that one (spec 7). */
  already_continued: { status: 409, meaning: "the Attempt already has a continuation" },
  /** A write on an ended Attempt: ended Attempts take no notes, uploads, submissions or second end. */
  attempt_ended: { status: 409, meaning: "the Attempt has ended; start a continuation" },
  /** A new Attempt or Submission on an archived Problem. */
  problem_archived: { status: 409, meaning: "the Problem is archived and takes no new work" },
  /** A withdrawn Artifact named where a live one is needed (a Submission, a reuse). */
  artifact_withdrawn: { status: 409, meaning: "the Artifact is withdrawn" },
  /** create_submission: the artifacts do not meet the Contract's submission_requirements. */
  requirements_unmet: {
    status: 422,
    meaning: "the artifacts do not meet the Contract's submission requirements",
  },
  /** create_submission after the sealed revision's submission_closes_at (spec 2.3). */
  submissions_closed: { status: 409, meaning: "the revision's submission cutoff has passed" },
  /** create_submission over a sealed evaluation's rolling quota; `next_slot_at` says when a slot frees up. */
  submission_quota_exhausted: {
    status: 429,
    meaning: "the sealed evaluation's submission quota for this window is used up",
  },
  /** Output of a protected stage (a log) read by someone who may not see it before label release. */
  withheld: { status: 403, meaning: "sealed-evaluation output is withheld from you until its release" },
  /** unseal_reference_inputs without the fingerprint prepare_reference_release gives, or with a stale one (spec 7). */
  stale_acknowledgement: {
    status: 409,
    meaning: "the acknowledgement fingerprint is missing or stale; call prepare_reference_release again",
  },
  /** unseal_reference_inputs on an evaluation already released (early or at sealed_until). */
  already_unsealed: { status: 409, meaning: "the sealed evaluation is already released" },
  /** nominate_final_entry after the cutoff or the label release, whichever came first. */
  final_entry_frozen: { status: 409, meaning: "final-entry selection is frozen" },
  /** A final-entry tool on a revision that is not a sealed evaluation with independent entries. */
  final_entry_not_applicable: {
    status: 409,
    meaning: "the revision has no independent sealed evaluation, so it takes no final entries",
  },
  /** claim_review: the caller does not meet the node's eligibility rule (spec 2.1). */
  not_eligible: { status: 403, meaning: "the caller is not eligible to review this node" },
  /** claim_review: the caller made the work, or belongs to its excluded Organization (spec 2.1 conflicts). */
  conflict_of_interest: {
    status: 403,
    meaning: "the caller has a conflict of interest with the work under review",
  },
  /** claim_review: every seat of the node is taken or done, or the caller already reviewed it. */
  seat_unavailable: { status: 409, meaning: "no seat of this review node is free for the caller" },
  /** claim_review: the node is pending, skipped, completed, or past its deadline. */
  node_not_open: { status: 409, meaning: "the review node is not open for claims" },
  /** A claim, decline or submission on a ReviewProcess that has finished. */
  process_finished: { status: 409, meaning: "the review process has finished" },
  /** decline or submit after the claim's hold passed: the seat reopened; claim again. */
  hold_lapsed: { status: 409, meaning: "the claim's hold lapsed; claim the seat again" },
  /** submit_review_response: the response fails the rubric; `problems` names each; the claim stays open (spec 7). */
  response_rejected: { status: 422, meaning: "the review response fails the node's rubric" },
  /** decline or submit on an assignment already submitted or declined. */
  assignment_ended: { status: 409, meaning: "the review assignment has already ended" },
  /** The service cannot answer yet: the database is unreachable or not migrated. */
  unavailable: { status: 503, meaning: "the service is not ready" },
  /** The service's own machinery failed; the request may be retried. */
  internal: { status: 500, meaning: "the service failed" },
} as const satisfies Record<string, { status: number; meaning: string }>;
export type ErrorCode = keyof typeof ErrorCode;
