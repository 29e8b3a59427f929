/**
 * The one catalogue of every code svc reports, by family. Codes are stable and never reused; the
 * specification's own codes (section 7) are used where it names them. `docs/errors.md` lists
 * exactly these codes (a test in schemas/test checks it), and the code maps below are what code
 * switches on.
 *
 * - service: a tool error, an HTTP error body or an operator command, `{"error": {code, message, ...}}`,
 *   each with its HTTP status;
 * - lint / note: lint records (spec section 7) from `svc lint`, validation, the App and the Action;
 * - tree: why a package tree (a directory or a ZIP archive) could not be opened or read; the archive
 *   refusals among them are validation errors of an authoring upload;
 * - transport: the client's own codes for failures that never reached a tool;
 * - blob: why the blob store refused bytes (a signed upload answers them as `upload_mismatch` or `too_large`);
 * - warning: the advisories of validation's reconciliation;
 * - review: why a review process ended without a decision.
 */

/** A catalogue entry: what the code means, and the HTTP status where one applies. */
export interface CodeEntry {
  readonly meaning: string;
  readonly status?: number;
}

/** The code map of a family: each code names itself, so `LintCode.not_found === "not_found"`. */
export type CodeMap<T> = { readonly [K in keyof T & string]: K };

function codesOf<T extends Record<string, CodeEntry>>(entries: T): CodeMap<T> {
  return Object.fromEntries(Object.keys(entries).map((code) => [code, code])) as CodeMap<T>;
}

/**
 * The service's codes: what a tool error, an HTTP error body or an operator command reports as
 * `{"error": {"code", "message", ...details}}`, each with its HTTP status.
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
  /** save_work_draft, prepare or publish with an expected_version that is no longer the draft's; `current_version` names it. */
  stale_draft_version: {
    status: 409,
    meaning: "the draft was saved since you read it; read it again and retry with its current version",
  },
  /** prepare_work_draft or publish_work_draft of a draft whose files fail validation; the errors are named. */
  draft_invalid: {
    status: 422,
    meaning: "the draft's package has lint errors or conflicts; fix the files named",
  },
  /** Publishing a proposed replacement of a revision under review (spec 7): the approved revision stays current. */
  revision_review_required: {
    status: 409,
    meaning:
      "the work's revisions are under or through review; request publication of the new version instead",
  },
  /** review_work_publication approving a request whose pinned draft version or work snapshot is no longer current. */
  stale_publication_request: {
    status: 409,
    meaning:
      "the draft or work changed since the request pinned it; reject it, or the requester withdraws and asks again",
  },
  /** A review of a publication request that is no longer pending. */
  request_resolved: {
    status: 409,
    meaning: "the publication request is already approved, rejected or withdrawn",
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
  /** get_leaderboard on a Problem that ranks nothing: neither BENCHMARK nor scored by its Contract. */
  leaderboard_not_applicable: {
    status: 409,
    meaning: "the problem has no leaderboard: it is neither a BENCHMARK problem nor scored by its contract",
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
  /** A yank of a VerifierImplementation or ReviewProtocol already yanked: a yank is written once. */
  already_yanked: { status: 409, meaning: "the record is already yanked; a yank is written once" },
  /** redact_stage_log on a log already redacted: a redaction is written once and never replaced. */
  already_redacted: {
    status: 409,
    meaning: "the stage log is already redacted; a redaction is written once",
  },
  /** attest_external_stage on a stage already attested: an attestation is written once. */
  already_attested: {
    status: 409,
    meaning: "the external stage is already attested; an attestation is written once",
  },
  /** attest_external_stage after the stage's deadline, or on a stage that ended without one. */
  attestation_closed: {
    status: 409,
    meaning: "the external stage no longer takes an attestation: its deadline passed",
  },
  /** accept_agent_job on a job no longer offered: the seat filled or closed, the want withdrawn. */
  job_unavailable: { status: 409, meaning: "the agent job is no longer offered" },
  /** list/accept of agent jobs past the user's usage budget, until `resets_at` (docs/agents.md). */
  budget_exhausted: { status: 429, meaning: "the agent usage budget is used up until its reset" },
  /** withdraw_want on a want already withdrawn. */
  want_withdrawn: { status: 409, meaning: "the want is already withdrawn" },
  /** Every validation slot is taken and the queue is full; retry after `retry_after_s`. */
  busy: { status: 503, meaning: "the service is at its limit of concurrent work; retry shortly" },
  /** A form POST without the CSRF token of the browser's session, or a sign-in whose `state` is not this browser's. */
  csrf_failed: {
    status: 403,
    meaning:
      "the form or sign-in did not come from this service's own page in this browser; reload it and retry",
  },
  /** A one-time sign-in link that is malformed, unknown, already used or expired. */
  sign_in_link_invalid: {
    status: 400,
    meaning: "the sign-in link is unknown, used or expired; ask for a new one",
  },
  /** Sign in with GitHub by a GitHub user the service does not know, while sign-up needs an invitation. */
  signup_closed: {
    status: 403,
    meaning: "this service admits new people by invitation; ask an operator to invite your GitHub login",
  },
  /** Sign in with GitHub did not complete: GitHub refused, or the attempt expired or was used. */
  github_sign_in_failed: {
    status: 400,
    meaning: "Sign in with GitHub did not complete; start it again from the sign-in page",
  },
  /** The service cannot answer yet: the database is unreachable or not migrated. */
  /** An organization action by someone who is not a member (or not an owner where owners act). */
  not_a_member: { status: 403, meaning: "the caller is not a member of the Organization, or not an owner" },
  /** Leaving, or removing or demoting, the only owner of an Organization (docs/organizations.md). */
  last_owner: { status: 409, meaning: "an Organization keeps at least one owner; make another owner first" },
  unavailable: { status: 503, meaning: "the service is not ready" },
  /** The service's own machinery failed; the request may be retried. */
  internal: { status: 500, meaning: "the service failed" },
} as const satisfies Record<string, { status: number; meaning: string }>;
export type ErrorCode = keyof typeof ErrorCode;

/** Lint error codes, exactly spec section 7's. Any error blocks publication. */
export const LintErrors = {
  missing_file: { meaning: "a file the package format requires is absent" },
  invalid_json: { meaning: "a .json file does not parse, or a SKILL.md frontmatter is not valid YAML" },
  schema_violation: {
    meaning: "a value breaks its JSON Schema or a cross-field rule the schema cannot state",
  },
  rule_violation: {
    meaning: "a review protocol breaks one of the numbered static rules 1 to 16 (`rule` holds the number)",
  },
  not_found: {
    meaning: "a reference (skill, protocol, stage, slot, fixture file, published id) names nothing",
  },
  binding_error: { meaning: "reference files, sealing or builtins do not fit the Contract" },
  unsupported_runtime: { meaning: "an implementation this service cannot run as written" },
  hash_mismatch: { meaning: "a stated content_hash or size_bytes differs from the bytes in the package" },
  unknown_file: {
    meaning: "a file sits where the package format gives names a meaning, but its name maps to nothing",
  },
} as const satisfies Record<string, CodeEntry>;
export const LintCode = codesOf(LintErrors);
export type LintCode = (typeof LintCode)[keyof typeof LintCode];

/** Lint note codes: advice that never blocks publication. */
export const LintNotes = {
  not_published: { meaning: "context.md and changelog.md are for authors only and never published" },
  ignored_file: { meaning: "a file the package format does not know is ignored" },
  linked_binding: {
    meaning: "a linked binding's hash and size are the author's statement; sandbox stages never mount it",
  },
  deprecated_field: { meaning: "a field that is accepted and ignored" },
  fixture_coverage: { meaning: "a sandbox stage lacks a verified or a refuted conformance fixture" },
  /** A service's validation only: the package pins a published protocol its publisher yanked. */
  yanked_review_protocol: {
    meaning: "a pinned review protocol is yanked: withdrawn from recommendation, though pins keep resolving",
  },
} as const satisfies Record<string, CodeEntry>;
export const NoteCode = codesOf(LintNotes);
export type NoteCode = (typeof NoteCode)[keyof typeof NoteCode];

/**
 * Why a package tree could not be opened or read. All but `not_found` and `not_a_directory` are
 * the archive reader's refusals, which an authoring upload's validation reports with `file`
 * naming the entry.
 */
export const TreeErrors = {
  not_found: { meaning: "the path names no file in the tree" },
  not_a_directory: { meaning: "the package path is not a directory" },
  unsafe_path: { meaning: "an entry name is absolute or has a `..` segment" },
  symlink: { meaning: "an entry is a symbolic link" },
  duplicate_entry: {
    meaning: "two entries have the same name, or names equal up to Unicode normalisation or letter case",
  },
  encrypted_entry: { meaning: "an entry is encrypted" },
  too_many_files: { meaning: "the archive holds more than 5000 files" },
  archive_too_large: { meaning: "the archive is over 64 MiB zipped" },
  unpacked_too_large: { meaning: "the archive unpacks to over 256 MiB (a zip bomb)" },
  entry_too_large: { meaning: "a document entry (statement.md, a JSON file...) is over its ceiling" },
  invalid_archive: { meaning: "the bytes are not a readable ZIP archive" },
} as const satisfies Record<string, CodeEntry>;
export const TreeErrorCode = codesOf(TreeErrors);
export type TreeErrorCode = (typeof TreeErrorCode)[keyof typeof TreeErrorCode];

/** The client's codes for failures that never reached a tool: the network, HTTP statuses, deadlines. */
export const TransportFailures = {
  network: { meaning: "the service could not be reached" },
  timeout: { meaning: "the call passed its deadline" },
  http: { meaning: "the service answered an HTTP error status outside a tool error" },
  unauthorized: {
    meaning: "the service answered HTTP 401: the token is missing, unknown or revoked",
    status: 401,
  },
  invalid_response: { meaning: "the service answered with something that is not the expected envelope" },
} as const satisfies Record<string, CodeEntry>;
export const TransportCode = codesOf(TransportFailures);
export type TransportCode = (typeof TransportCode)[keyof typeof TransportCode];

/** Why the blob store refused bytes; nothing was kept. Keyed by the wire code. */
export const BlobRefusals = {
  blob_too_large: { meaning: "more bytes arrived than the limit allows" },
  blob_size_mismatch: { meaning: "the byte count differs from the declared size" },
  hash_mismatch: { meaning: "the bytes hash to something other than the declared hash" },
} as const satisfies Record<string, CodeEntry>;

/** The blob store's refusals by reason, each mapped to its wire code in {@link BlobRefusals}. */
export const BlobRefusalCode = {
  /** More bytes arrived than `maxBytes` allows; reading stopped at the first byte over. */
  too_large: "blob_too_large",
  /** The byte count differs from `expectedSize` (too many: stopped early; too few: at the end). */
  size_mismatch: "blob_size_mismatch",
  /** The bytes hash to something other than `expectedHash`. */
  hash_mismatch: "hash_mismatch",
} as const satisfies Record<string, keyof typeof BlobRefusals>;
export type BlobRefusalCode = (typeof BlobRefusalCode)[keyof typeof BlobRefusalCode];

/** Advisories in validate_authoring_upload's reconciliation (`warnings`); they never block publication. */
export const ReconciliationWarnings = {
  possible_duplicate: {
    meaning: "a Problem the upload creates has the same effective task as another live Problem (`of`)",
  },
} as const satisfies Record<string, CodeEntry>;
export const ReconciliationWarningCode = codesOf(ReconciliationWarnings);
export type ReconciliationWarningCode =
  (typeof ReconciliationWarningCode)[keyof typeof ReconciliationWarningCode];

/**
 * Why a review process finished without its output node emitting (spec 2.1 section 3): the
 * process's `end_reason`, which its verification stage reports as inconclusive.
 */
export const ReviewEndings = {
  reviewers_unavailable: {
    meaning: "a review node's deadline passed with a seat still open: no eligible reviewer answered in time",
  },
} as const satisfies Record<string, CodeEntry>;

/** Every family of the catalogue, as `docs/errors.md` presents them. */
export const ErrorCatalogue = {
  service: ErrorCode,
  lint: LintErrors,
  note: LintNotes,
  tree: TreeErrors,
  transport: TransportFailures,
  blob: BlobRefusals,
  warning: ReconciliationWarnings,
  review: ReviewEndings,
} as const;
export type ErrorFamily = keyof typeof ErrorCatalogue;
