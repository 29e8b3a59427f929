import { mediaTypeOf } from "@svc/app";
import { AttemptAccess, readAttempt, requireActive } from "../attempts/read-attempt.ts";
import { inTransaction } from "../core/db/in-transaction.ts";
import { ServiceError } from "../core/errors/service-error.ts";
import type { Services } from "../core/services/services.ts";
import { signedDownloads } from "../downloads/signed-download.ts";
import type { Caller } from "../users/caller.ts";
import { viewerOf } from "../visibility/viewer.ts";
import { type Artifact, toArtifact } from "./artifact.ts";
import { MAX_INLINE_ARTIFACT_BYTES } from "./artifact-limits.ts";
import { insertArtifact } from "./insert-artifact.ts";

export interface UploadArtifactInput {
  attempt_id: string;
  filename: string;
  media_type?: string;
  content_text?: string;
  content_base64?: string;
}

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/**
 * upload_artifact: a small file sent inline, as UTF-8 text (`content_text`, stored exactly as
 * encoded, no byte order mark added) or base64 (`content_base64`), at most 512 KiB decoded. The
 * bytes are stored first (content-addressed, so a failed insert leaves only an unreferenced blob),
 * then the Artifact row is inserted under the Attempt's row lock, so it cannot land on an
 * Attempt that ended meanwhile.
 */
export async function uploadArtifact(
  services: Services,
  caller: Caller,
  input: UploadArtifactInput,
): Promise<{ artifact: Artifact }> {
  const bytes = decodeContent(input);
  if (bytes.byteLength > MAX_INLINE_ARTIFACT_BYTES) {
    throw new ServiceError(
      "too_large",
      `the content is ${bytes.byteLength} bytes, over upload_artifact's ${MAX_INLINE_ARTIFACT_BYTES} bytes (512 KiB): call request_artifact_upload with its size_bytes and content_hash and PUT the bytes to the URL it returns`,
      {
        field: input.content_text !== undefined ? "content_text" : "content_base64",
        max_bytes: MAX_INLINE_ARTIFACT_BYTES,
      },
    );
  }
  const { attempt } = await readAttempt(services.sql, viewerOf(caller.principal), input.attempt_id, {
    access: AttemptAccess.own,
  });
  requireActive(attempt);
  const stored = await services.blobs.put(bytes);
  return recordArtifact(
    services,
    caller,
    { ...input, media_type: input.media_type ?? mediaTypeOf(input.filename) },
    stored,
  );
}

/**
 * Makes bytes already in the blob store an Artifact of the caller's active Attempt: the row is
 * inserted under the Attempt's row lock, so it cannot land on an Attempt that ended meanwhile.
 * upload_artifact and the problem page's submit form (which streams its files into the store
 * first) both end here.
 */
export async function recordArtifact(
  services: Services,
  caller: Caller,
  input: { attempt_id: string; filename: string; media_type: string },
  stored: { content_hash: string; size_bytes: number },
): Promise<{ artifact: Artifact }> {
  const viewer = viewerOf(caller.principal);
  const row = await inTransaction(services.sql, async (tx) => {
    const { attempt: locked } = await readAttempt(tx, viewer, input.attempt_id, {
      access: AttemptAccess.own,
      lock: true,
    });
    requireActive(locked);
    return insertArtifact(
      tx,
      {
        attempt_id: locked.id,
        user_id: locked.user_id,
        filename: input.filename,
        media_type: input.media_type,
        content_hash: stored.content_hash,
        size_bytes: stored.size_bytes,
      },
      services.clock(),
    );
  });
  return { artifact: toArtifact(row, signedDownloads(services, caller)) };
}

/** The bytes of exactly one of `content_text` and `content_base64`. */
function decodeContent(input: UploadArtifactInput): Uint8Array {
  const text = input.content_text;
  const base64 = input.content_base64;
  if ((text === undefined) === (base64 === undefined)) {
    throw new ServiceError(
      "invalid_input",
      "give exactly one of content_text (UTF-8 text) and content_base64 (any bytes, base64-encoded)",
      { field: text === undefined ? "content_text" : "content_base64" },
    );
  }
  if (text !== undefined) return Buffer.from(text, "utf8");
  const compact = base64!.replace(/\s+/g, "");
  if (!BASE64.test(compact)) {
    throw new ServiceError(
      "invalid_input",
      "content_base64 is not base64 (RFC 4648 alphabet A-Z a-z 0-9 + /, padded with =): encode the file's bytes",
      { field: "content_base64" },
    );
  }
  return Buffer.from(compact, "base64");
}
