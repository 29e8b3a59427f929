import { mediaTypeOf } from "@svc/app";
import { IdPrefix } from "@svc/schemas";
import { AttemptAccess, readAttempt, requireActive } from "../attempts/read-attempt.ts";
import { isContentHash } from "../core/blobs/content-hash.ts";
import { ServiceError } from "../core/errors/service-error.ts";
import { randomId } from "../core/ids/random-id.ts";
import type { Services } from "../core/services/services.ts";
import { signUploadUrl } from "../core/signing/signed-upload-url.ts";
import { signedUrlExpiry } from "../core/signing/signed-url-expiry.ts";
import type { Caller } from "../users/caller.ts";
import { viewerOf } from "../visibility/viewer.ts";
import { MAX_ARTIFACT_BYTES } from "./artifact-limits.ts";

export interface RequestArtifactUploadInput {
  attempt_id: string;
  filename: string;
  media_type?: string;
  size_bytes: number;
  content_hash: string;
}

/** request_artifact_upload's result: where to PUT the bytes and until when. */
export interface RequestedArtifactUpload {
  upload_id: string;
  /** Absolute signed `PUT {base_url}/up/...`, accepting exactly the declared bytes. */
  upload_url: string;
  expires_at: string;
  max_bytes: number;
}

/**
 * request_artifact_upload (spec 4.1): records the Artifact the caller will PUT (name, media type,
 * size and hash) and signs a 15-minute PUT URL for exactly those bytes. The completed PUT creates
 * the Artifact (receiveArtifactUpload); nothing exists as an Artifact before it.
 */
export async function requestArtifactUpload(
  services: Services,
  caller: Caller,
  input: RequestArtifactUploadInput,
): Promise<RequestedArtifactUpload> {
  const { baseUrl } = caller;
  const viewer = viewerOf(caller.principal);
  if (input.size_bytes > MAX_ARTIFACT_BYTES) {
    throw new ServiceError(
      "too_large",
      `size_bytes ${input.size_bytes} is over the ${MAX_ARTIFACT_BYTES} bytes (256 MiB) an Artifact may hold: split or compress the file`,
      { field: "size_bytes", max_bytes: MAX_ARTIFACT_BYTES },
    );
  }
  if (!isContentHash(input.content_hash)) {
    throw new ServiceError(
      "invalid_input",
      'content_hash must be "sha256:" and 64 lowercase hex digits: the sha256 of the file\'s bytes',
      { field: "content_hash" },
    );
  }
  const { attempt } = await readAttempt(services.sql, viewer, input.attempt_id, {
    access: AttemptAccess.own,
  });
  requireActive(attempt);
  const id = randomId(IdPrefix.artifactUpload);
  const expiresAt = signedUrlExpiry(services.clock());
  await services.sql`
    insert into artifact_uploads (id, attempt_id, user_id, filename, media_type, content_hash, size_bytes, expires_at)
    values (${id}, ${attempt.id}, ${attempt.user_id}, ${input.filename},
      ${input.media_type ?? mediaTypeOf(input.filename)}, ${input.content_hash}, ${input.size_bytes}, ${expiresAt})`;
  const path = signUploadUrl(
    { target: id, expiresAt, maxBytes: input.size_bytes, contentHash: input.content_hash },
    services.signingSecret,
  );
  return {
    upload_id: id,
    upload_url: `${baseUrl}${path}`,
    expires_at: expiresAt.toISOString(),
    max_bytes: input.size_bytes,
  };
}
