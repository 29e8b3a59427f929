import type { RunTrigger } from "@svc/schemas";
import type { Pool } from "../../../src/core/db/connect-sql.ts";
import { randomId } from "../../../src/core/ids/random-id.ts";
import type { Services } from "../../../src/core/services/services.ts";
import type { Principal } from "../../../src/users/principal.ts";
import { queueVerificationRun } from "../../../src/verification/queue-verification-run.ts";
import {
  type Files,
  fixturePackage,
  newAuthor,
  newUser,
  publishFiles,
} from "../../authoring/support/authoring-harness.ts";

/** A published Problem whose revision pins a Contract. */
export interface PublishedProblem {
  problem_id: string;
  problem_revision_id: string;
  verifier_contract_id: string;
  implementation_ids: string[];
}

/** Publishes a package (a lint fixture by name, or files) and returns the ids a run needs. */
export async function publishProblem(
  services: Services,
  author: Principal,
  pkg: string | Files,
): Promise<PublishedProblem> {
  const files = typeof pkg === "string" ? fixturePackage(pkg) : pkg;
  const result = await publishFiles(services, author, files);
  const problem = result.problems[0]!;
  const [revision] = await services.sql<{ verifier_contract_id: string }[]>`
    select verifier_contract_id from problem_revisions where id = ${problem.problem_revision_id}`;
  return {
    problem_id: problem.problem_id,
    problem_revision_id: problem.problem_revision_id,
    verifier_contract_id: revision!.verifier_contract_id,
    implementation_ids: result.verifier_implementation_ids,
  };
}

/** Marks every implementation of a Contract as conformance-passed, for tests about runs alone. */
export async function passConformance(sql: Pool, contractId: string): Promise<void> {
  await sql`
    update verifier_implementations
    set conformance = ${sql.json({
      status: "passed",
      checked_at: new Date().toISOString(),
      fixtures_total: 0,
      fixtures_passed: 0,
      failures: [],
      differential_against_implementation_id: null,
    })}
    where verifier_contract_id = ${contractId}`;
}

/**
 * The usual stage of a test about runs: the builtin SAT fixture published by a new author, its
 * Contract's implementations marked conformance-passed, and a new user to solve it.
 */
export async function publishedSat(
  services: Services,
): Promise<{ solver: Principal; sat: PublishedProblem }> {
  const author = await newAuthor(services.sql);
  const solver = await newUser(services.sql);
  const sat = await publishProblem(services, author, "valid-builtin-sat");
  await passConformance(services.sql, sat.verifier_contract_id);
  return { solver, sat };
}

export interface SeedArtifact {
  role: string;
  filename: string;
  media_type: string;
  content: string | Uint8Array;
}

/**
 * An Attempt, its Artifacts and a Submission inserted directly (the solver tools are tested on
 * their own), with the run queued in the same transaction as create_submission does.
 */
export async function seedSubmission(
  services: Services,
  user: Principal,
  problem: PublishedProblem,
  artifacts: SeedArtifact[],
  trigger: RunTrigger = "submission",
): Promise<{ attempt_id: string; submission_id: string; verification_run_id: string }> {
  const { sql, blobs } = services;
  const stored: Array<SeedArtifact & { id: string; content_hash: string; size_bytes: number }> = [];
  for (const artifact of artifacts) {
    const bytes = typeof artifact.content === "string" ? Buffer.from(artifact.content) : artifact.content;
    stored.push({ ...artifact, id: randomId("art"), ...(await blobs.put(bytes)) });
  }
  return await sql.begin(async (tx) => {
    const attemptId = randomId("att");
    await tx`
      insert into attempts (id, problem_id, problem_revision_id, user_id)
      values (${attemptId}, ${problem.problem_id}, ${problem.problem_revision_id}, ${user.user.id})`;
    for (const artifact of stored) {
      await tx`
        insert into artifacts (id, attempt_id, user_id, filename, media_type, content_hash, size_bytes)
        values (${artifact.id}, ${attemptId}, ${user.user.id}, ${artifact.filename}, ${artifact.media_type},
          ${artifact.content_hash}, ${artifact.size_bytes})`;
    }
    const runArtifacts = stored.map((a) => ({
      role: a.role,
      artifact_id: a.id,
      content_hash: a.content_hash,
      size_bytes: a.size_bytes,
    }));
    const submissionId = randomId("sub");
    await tx`
      insert into submissions (id, attempt_id, user_id, problem_id, problem_revision_id, artifacts)
      values (${submissionId}, ${attemptId}, ${user.user.id}, ${problem.problem_id}, ${problem.problem_revision_id},
        ${tx.json(runArtifacts)})`;
    const runId = await queueVerificationRun(tx, {
      submissionId,
      problemRevisionId: problem.problem_revision_id,
      verifierContractId: problem.verifier_contract_id,
      artifacts: runArtifacts,
      trigger,
    });
    return { attempt_id: attemptId, submission_id: submissionId, verification_run_id: runId };
  });
}
