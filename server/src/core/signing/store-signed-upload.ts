import { BlobRefusalCode } from "@svc/schemas";
import { BlobRefusedError, type BlobSource, type BlobStore } from "../blobs/index.ts";
import { ServiceError } from "../errors/service-error.ts";

/** The upload a signed PUT writes: its id, and the size and hash it declared when requested. */
export interface DeclaredUpload {
  id: string;
  content_hash: string;
  size_bytes: number;
}

/**
 * The body of a signed PUT into the blob store, kept only with exactly the declared size and hash
 * and at most `maxBytes` (the signed limit). A refusal keeps nothing and is the catalogue's
 * `too_large` or `upload_mismatch`, with what was measured and the upload's id, so the caller can
 * retry the same URL with the right bytes.
 */
export async function storeSignedUpload(
  blobs: BlobStore,
  body: BlobSource,
  upload: DeclaredUpload,
  maxBytes: number,
): Promise<void> {
  try {
    await blobs.put(body, { expectedHash: upload.content_hash, expectedSize: upload.size_bytes, maxBytes });
  } catch (error) {
    if (!(error instanceof BlobRefusedError)) throw error;
    const { code: refusal, ...measured } = error.refusal;
    const code = refusal === BlobRefusalCode.too_large ? "too_large" : "upload_mismatch";
    throw new ServiceError(code, `${error.message}; nothing was kept`, {
      ...measured,
      refusal,
      upload_id: upload.id,
    });
  }
}
