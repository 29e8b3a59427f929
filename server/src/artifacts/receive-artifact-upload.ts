import { IdPrefix, idPattern } from "@svc/schemas";
import { findAttempt } from "../attempts/find-attempt.ts";
import { requireActive } from "../attempts/read-attempt.ts";
import type { BlobSource } from "../core/blobs/index.ts";
import { ServiceError } from "../core/errors/service-error.ts";
import type { Services } from "../core/services/services.ts";
import type { SignedUpload } from "../core/signing/signed-upload-url.ts";
import { storeSignedUpload } from "../core/signing/store-signed-upload.ts";
import { type Artifact, toArtifact } from "./artifact.ts";
import { findArtifact } from "./find-artifact.ts";
import { insertArtifact } from "./insert-artifact.ts";

/** The target prefix of an Artifact upload's signed URL: the `aru_` id. */
export const ARTIFACT_UPLOAD_TARGET = idPattern(IdPrefix.artifactUpload);

interface UploadRow {
  id: string;
  attempt_id: string;
  user_id: string;
  filename: string;
  media_type: string;
  content_hash: string;
  size_bytes: number;
  artifact_id: string | null;
}

/**
 * The signed PUT of a requested Artifact (the URL already verified by the route): streams the
 * body into the blob store, which keeps it only with exactly the declared size and hash (422
 * `upload_mismatch` otherwise, nothing kept, the URL may be retried), then creates the Artifact
 * once. A repeated PUT after success returns the same Artifact. An Attempt that ended between the
 * request and the PUT gets no Artifact (`attempt_ended`).
 */
export async function receiveArtifactUpload(
  services: Services,
  verified: SignedUpload,
  body: BlobSource,
): Promise<{ upload_id: string; artifact: Artifact }> {
  const { sql, blobs, clock } = services;
  const [upload] = await sql<UploadRow[]>`
    select id, attempt_id, user_id, filename, media_type, content_hash, size_bytes::float8 as size_bytes, artifact_id
    from artifact_uploads where id = ${verified.target}`;
  // Only this service signs these URLs, so a missing row or another hash means a foreign secret.
  if (!upload || upload.content_hash !== verified.contentHash) {
    throw new ServiceError(
      "signed_url_invalid",
      "this upload URL is invalid or has expired: call request_artifact_upload for a new one",
    );
  }
  await storeSignedUpload(blobs, body, upload, verified.maxBytes);
  const artifactId = await sql.begin(async (tx) => {
    const [locked] = await tx<{ artifact_id: string | null }[]>`
      select artifact_id from artifact_uploads where id = ${upload.id} for update`;
    if (locked?.artifact_id) return locked.artifact_id;
    const attempt = await findAttempt(tx, upload.attempt_id, { lock: true });
    requireActive(attempt!);
    const row = await insertArtifact(
      tx,
      {
        attempt_id: upload.attempt_id,
        user_id: upload.user_id,
        filename: upload.filename,
        media_type: upload.media_type,
        content_hash: upload.content_hash,
        size_bytes: Number(upload.size_bytes),
      },
      clock(),
    );
    await tx`update artifact_uploads set artifact_id = ${row.id} where id = ${upload.id}`;
    return row.id;
  });
  const artifact = await findArtifact(sql, artifactId);
  return { upload_id: upload.id, artifact: toArtifact(artifact!) };
}
