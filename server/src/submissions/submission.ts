import type { RunResult, RunStatus, SubmissionStatus } from "@svc/schemas";

/**
 * Glossary. A *Submission* binds Artifacts of one Attempt to the roles of the pinned Contract's
 * `submission_requirements`; creating one queues a VerificationRun when the revision pins a
 * Contract. It is `active` until its owner withdraws it (write-once); its `artifacts` are frozen
 * at creation with each Artifact's hash and size, in the Contract's role order.
 */

/** One bound Artifact as the Submission records it (and the run's inputs repeat it). */
export interface SubmissionArtifact {
  role: string;
  artifact_id: string;
  content_hash: string;
  size_bytes: number;
}

/** The newest run of a Submission, as its record summarises it. */
export interface SubmissionVerification {
  id: string;
  status: RunStatus;
  result: RunResult | null;
  score: number | null;
  created_at: string;
  finished_at: string | null;
}

/** The Submission record as tools return it. */
export interface Submission {
  id: string;
  attempt_id: string;
  user_id: string;
  problem_id: string;
  problem_revision_id: string;
  artifacts: SubmissionArtifact[];
  status: SubmissionStatus;
  created_at: string;
  withdrawn_at: string | null;
  /** Every VerificationRun of this Submission, latest first. */
  verification_run_ids: string[];
  latest_verification: SubmissionVerification | null;
}
