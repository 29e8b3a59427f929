import { AttemptAccess, readAttempt, requireActive } from "../attempts/read-attempt.ts";
import { inTransaction } from "../core/db/in-transaction.ts";
import { ServiceError } from "../core/errors/service-error.ts";
import type { Services } from "../core/services/services.ts";
import { signedDownloads } from "../downloads/signed-download.ts";
import type { Caller } from "../users/caller.ts";
import { viewerOf } from "../visibility/viewer.ts";
import { type Artifact, toArtifact } from "./artifact.ts";
import { insertArtifact } from "./insert-artifact.ts";
import { readArtifact } from "./read-artifact.ts";

/**
 * reuse_artifact (spec 4.1): carries a live Artifact of the caller from another of their Attempts
 * on the same Problem (typically the one this Attempt continues) into this Attempt by reference: a
 * new Artifact row with the same name, media type, size and bytes, recording where it came from.
 * The source is locked while it is copied, so it cannot be withdrawn halfway.
 */
export async function reuseArtifact(
  services: Services,
  caller: Caller,
  input: { attempt_id: string; artifact_id: string },
): Promise<{ artifact: Artifact }> {
  const { sql, clock } = services;
  const viewer = viewerOf(caller.principal);
  const row = await inTransaction(sql, async (tx) => {
    const { attempt } = await readAttempt(tx, viewer, input.attempt_id, {
      access: AttemptAccess.own,
      lock: true,
    });
    requireActive(attempt);
    const source = await readArtifact(tx, viewer, input.artifact_id, { access: "own", lock: true });
    if (source.withdrawn_at !== null) {
      throw new ServiceError(
        "artifact_withdrawn",
        `artifact ${source.id} was withdrawn at ${source.withdrawn_at.toISOString()} and cannot be reused: upload the file again`,
        { field: "artifact_id", artifact_id: source.id },
      );
    }
    if (source.problem_id !== attempt.problem_id) {
      throw new ServiceError(
        "different_problem",
        `artifact ${source.id} belongs to an Attempt on another Problem; only Artifacts of your Attempts on ${attempt.problem_slug} can be reused here`,
        { field: "artifact_id", artifact_id: source.id, problem_id: source.problem_id },
      );
    }
    if (source.attempt_id === attempt.id) {
      throw new ServiceError(
        "invalid_input",
        `artifact ${source.id} is already in attempt ${attempt.id}: bind it in create_submission directly`,
        { field: "artifact_id" },
      );
    }
    return insertArtifact(
      tx,
      {
        attempt_id: attempt.id,
        user_id: attempt.user_id,
        filename: source.filename,
        media_type: source.media_type,
        content_hash: source.content_hash,
        size_bytes: Number(source.size_bytes),
        reused_from_artifact_id: source.id,
      },
      clock(),
    );
  });
  return { artifact: toArtifact(row, signedDownloads(services, caller)) };
}
