import { UploadState } from "@svc/schemas";
import type { BlobSource } from "../core/blobs/index.ts";
import { ServiceError } from "../core/errors/service-error.ts";
import type { Services } from "../core/services/services.ts";
import { verifySignedUploadPath } from "../core/signing/signed-upload-url.ts";
import { storeSignedUpload } from "../core/signing/store-signed-upload.ts";

export interface ReceivedUpload {
  upload_id: string;
  state: UploadState;
  content_hash: string;
  size_bytes: number;
}

/**
 * The signed PUT of an authoring upload: streams `body` into the blob store, which keeps it only
 * when it has exactly the declared size and hash, then marks the upload `uploaded`. A refusal keeps
 * nothing and leaves the upload `requested`, so the same URL can be retried with the right bytes.
 * Sending the same bytes again after success is harmless: the blob is already there and the state
 * stays where it is.
 */
export async function receiveAuthoringUpload(
  services: Services,
  path: string,
  body: BlobSource,
): Promise<ReceivedUpload> {
  const verified = verifySignedUploadPath(path, services.signingSecret, services.clock());
  if (!verified.ok) {
    services.log.info({ reason: verified.reason }, "signed upload URL refused");
    throw invalidUrl();
  }
  const [upload] = await services.sql<{ id: string; size_bytes: number; content_hash: string }[]>`
    select id, size_bytes::integer as size_bytes, content_hash from authoring_uploads where id = ${verified.target}`;
  // Only this service signs these URLs, so a missing row or another hash means a foreign secret.
  if (!upload || upload.content_hash !== verified.contentHash) throw invalidUrl();
  await storeSignedUpload(services.blobs, body, upload, verified.maxBytes);
  const [row] = await services.sql<{ state: UploadState }[]>`
    update authoring_uploads set state = ${UploadState.uploaded}, uploaded_at = ${services.clock()}
    where id = ${upload.id} and state = ${UploadState.requested}
    returning state`;
  const state =
    row?.state ??
    (
      await services.sql<
        { state: UploadState }[]
      >`select state from authoring_uploads where id = ${upload.id}`
    )[0]!.state;
  return { upload_id: upload.id, state, content_hash: upload.content_hash, size_bytes: upload.size_bytes };
}

function invalidUrl(): ServiceError {
  return new ServiceError(
    "signed_url_invalid",
    "this upload URL is invalid or has expired: call request_authoring_upload for a new one",
  );
}
