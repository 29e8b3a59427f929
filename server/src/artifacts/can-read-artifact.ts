import type { Viewer } from "../work/viewer.ts";
import type { ArtifactRow } from "./artifact.ts";

/**
 * Whether the viewer may read an Artifact's bytes: its owner and administrators. This is the seam
 * for review: when review processes land, a reviewer holding a seat whose case names the
 * Artifact's Submission reads it too, and that check goes here, so the resource and `/dl/` follow.
 */
export function canReadArtifact(viewer: Viewer | null, artifact: Pick<ArtifactRow, "user_id">): boolean {
  return viewer !== null && (viewer.isAdministrator || viewer.userId === artifact.user_id);
}
