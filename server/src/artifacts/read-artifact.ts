import type { Sql } from "../core/db/connect-sql.ts";
import { ServiceError } from "../core/errors/service-error.ts";
import { findProblem } from "../problems/find-problem.ts";
import type { ProblemRow } from "../problems/problem-row.ts";
import type { Viewer } from "../visibility/viewer.ts";
import { canReadWork } from "../visibility/work-access.ts";
import type { ArtifactRow } from "./artifact.ts";
import { canReadArtifact, reviewsArtifact } from "./can-read-artifact.ts";
import { findArtifact } from "./find-artifact.ts";

/**
 * The Artifact `id` names, for this viewer: `own` for writes (the owner only), `read` for reads
 * (canReadArtifact: owners, administrators and the Submission's reviewers). Someone else's Artifact on a Problem the viewer can see is `not_yours`;
 * otherwise an unknown id and an invisible one are the same `not_found`.
 */
export async function readArtifact(
  sql: Sql,
  viewer: Viewer,
  id: string,
  options: {
    access: "own" | "read";
    lock?: boolean;
    field?: string;
    now?: Date;
    /** A Problem the caller read in this transaction: not read again when it is the Artifact's. */
    problem?: ProblemRow;
    /** The row findArtifact gave the caller for `id` (with the lock it needs): not read again. */
    found?: ArtifactRow | null;
  },
): Promise<ArtifactRow> {
  const field = options.field ?? "artifact_id";
  const artifact =
    options.found !== undefined ? options.found : await findArtifact(sql, id, { lock: options.lock });
  // A reviewer of the Submission reads it (reviewsArtifact: only while they may read the Problem).
  if (
    artifact &&
    options.access === "read" &&
    (await reviewsArtifact(sql, viewer.userId, artifact.id, options.now ?? new Date()))
  )
    return artifact;
  const problem =
    artifact &&
    (options.problem?.id === artifact.problem_id
      ? options.problem
      : await findProblem(sql, artifact.problem_id));
  if (!artifact || !problem || !canReadWork(viewer, problem)) {
    throw new ServiceError(
      "not_found",
      `no artifact ${id} is visible to you: list_artifacts lists an Attempt's Artifacts`,
      { field, artifact_id: id },
    );
  }
  const allowed =
    options.access === "own"
      ? artifact.user_id === viewer.userId
      : await canReadArtifact(sql, viewer, artifact, options.now ?? new Date());
  if (allowed) return artifact;
  throw new ServiceError(
    "not_yours",
    `artifact ${id} belongs to another user: name one of your own Artifacts (list_artifacts lists them)`,
    { field, artifact_id: id },
  );
}
