import type { SignedDownloadLink } from "../downloads/signed-download.ts";
import { artifactTarget } from "./artifact-target.ts";

/**
 * Glossary. An *Artifact* is a file a participant uploads into their Attempt: its bytes live in
 * the blob store under their hash, the row records name, media type, size and hash. A *reuse*
 * is a new Artifact row in a continuation pointing at the same bytes (`reused_from_artifact_id`).
 * *Withdrawing* an Artifact stops it being served (downloads answer 410) and offered for new
 * Submissions; the row and the bytes stay, so Submissions and runs that named it keep their record.
 */

/** An `artifacts` row. */
export interface ArtifactRow {
  id: string;
  attempt_id: string;
  user_id: string;
  problem_id: string;
  filename: string;
  media_type: string;
  content_hash: string;
  size_bytes: number;
  reused_from_artifact_id: string | null;
  created_at: Date;
  withdrawn_at: Date | null;
}

/** The Artifact record as tools return it, with its resource URI and, while live, a signed link. */
export interface Artifact {
  id: string;
  attempt_id: string;
  user_id: string;
  filename: string;
  media_type: string;
  content_hash: string;
  size_bytes: number;
  reused_from_artifact_id: string | null;
  created_at: string;
  withdrawn_at: string | null;
  /** `svc://artifacts/<id>`; a withdrawn Artifact's URI is not served. */
  resource_uri: string;
  download_url?: string;
  expires_at?: string;
}

/** The select list of {@link ArtifactRow} over `artifacts r` (the Problem from its Attempt). */
export const ARTIFACT_COLUMNS = `r.id, r.attempt_id, r.user_id,
  (select problem_id from attempts where id = r.attempt_id) as problem_id, r.filename, r.media_type,
  r.content_hash, r.size_bytes::float8 as size_bytes, r.reused_from_artifact_id, r.created_at, r.withdrawn_at`;

/** `svc://artifacts/<id>`. */
export function artifactUri(id: string): string {
  return `svc://artifacts/${id}`;
}

/** The record of a row; `sign` adds a 15-minute download link to a live Artifact. */
export function toArtifact(row: ArtifactRow, sign?: (target: string) => SignedDownloadLink): Artifact {
  return {
    id: row.id,
    attempt_id: row.attempt_id,
    user_id: row.user_id,
    filename: row.filename,
    media_type: row.media_type,
    content_hash: row.content_hash,
    size_bytes: Number(row.size_bytes),
    reused_from_artifact_id: row.reused_from_artifact_id,
    created_at: row.created_at.toISOString(),
    withdrawn_at: row.withdrawn_at?.toISOString() ?? null,
    resource_uri: artifactUri(row.id),
    ...(sign && row.withdrawn_at === null ? sign(artifactTarget(row.id)) : {}),
  };
}
