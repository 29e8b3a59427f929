import { ServiceError } from "../core/errors/service-error.ts";
import type { Services } from "../core/services/services.ts";
import { findProblem } from "../problems/find-problem.ts";
import type { Viewer } from "../visibility/viewer.ts";
import { canReadArtifact } from "./can-read-artifact.ts";
import { findArtifact } from "./find-artifact.ts";

/** The bytes a signed Artifact link serves: what `/dl/` streams. */
export interface ArtifactDownload {
  contentHash: string;
  mediaType: string;
  filename: string;
}

/**
 * The `/dl/` answer for an Artifact link whose signature was already checked: 410 `gone` once the
 * Artifact is withdrawn, however fresh the link. The link is the capability (spec 5.5), except on
 * a private Problem, where it also needs the bearer of someone who may read the Artifact: 401
 * without one, 404 for anyone else.
 */
export async function artifactDownload(
  services: Services,
  viewer: Viewer | null,
  artifactId: string,
): Promise<ArtifactDownload> {
  const artifact = await findArtifact(services.sql, artifactId);
  // Only this service signs links, so an unknown id means a foreign secret: refuse like a bad link.
  if (!artifact) throw new ServiceError("signed_url_invalid", "this download link is invalid or expired");
  if (artifact.withdrawn_at !== null) {
    throw new ServiceError("gone", `artifact ${artifact.id} was withdrawn and is no longer served`, {
      artifact_id: artifact.id,
      withdrawn_at: artifact.withdrawn_at.toISOString(),
    });
  }
  const problem = await findProblem(services.sql, artifact.problem_id);
  if (
    problem?.visibility === "private" &&
    !(await canReadArtifact(services.sql, viewer, artifact, services.clock()))
  ) {
    if (viewer === null) {
      throw new ServiceError(
        "unauthorized",
        "this download belongs to private work: send Authorization: Bearer <token> of the Artifact's owner",
      );
    }
    throw new ServiceError("not_found", "no such download for this user");
  }
  return { contentHash: artifact.content_hash, mediaType: artifact.media_type, filename: artifact.filename };
}
