import { IdPrefix, Scope } from "@svc/schemas";
import { isContentHash } from "../core/blobs/content-hash.ts";
import { ServiceError } from "../core/errors/service-error.ts";
import { randomId } from "../core/ids/random-id.ts";
import type { Services } from "../core/services/services.ts";
import { signUploadUrl } from "../core/signing/signed-upload-url.ts";
import { signedUrlExpiry } from "../core/signing/signed-url-expiry.ts";
import type { Principal } from "../users/principal.ts";
import { requireScope } from "../users/require-scope.ts";
import { MAX_UPLOAD_BYTES } from "./upload-state.ts";
import { validationPool } from "./validation-pool.ts";

export interface RequestedUpload {
  upload_id: string;
  /** Absolute signed PUT URL, valid until `expires_at`. */
  upload_url: string;
  expires_at: string;
  max_bytes: number;
}

/**
 * request_authoring_upload (spec 4.1): records an upload the caller will PUT, with the size and
 * hash they declare, and returns a signed URL that accepts exactly those bytes for 15 minutes.
 * Any contributor may upload; publishing needs more (publishAuthoringUpload).
 */
export async function requestAuthoringUpload(
  services: Services,
  principal: Principal,
  input: { size_bytes: number; content_hash: string },
  baseUrl: string = services.baseUrl ?? "",
): Promise<RequestedUpload> {
  requireScope(principal, Scope.contribute);
  const { size_bytes, content_hash } = input;
  if (!Number.isSafeInteger(size_bytes) || size_bytes < 1) {
    throw new ServiceError("invalid_input", "size_bytes must be the archive's size in bytes, at least 1", {
      field: "size_bytes",
    });
  }
  if (size_bytes > MAX_UPLOAD_BYTES) {
    throw new ServiceError(
      "too_large",
      `size_bytes ${size_bytes} is over the server's ceiling of ${MAX_UPLOAD_BYTES} bytes (64 MiB) zipped: split the package (svc draft shards it)`,
      { field: "size_bytes", max_bytes: MAX_UPLOAD_BYTES },
    );
  }
  if (!isContentHash(content_hash)) {
    throw new ServiceError(
      "invalid_input",
      'content_hash must be "sha256:" and 64 lowercase hex digits: the sha256 of the archive\'s bytes',
      { field: "content_hash" },
    );
  }
  const id = randomId(IdPrefix.authoringUpload);
  const expiresAt = signedUrlExpiry(services.clock());
  await services.sql`
    insert into authoring_uploads (id, user_id, size_bytes, content_hash, expires_at)
    values (${id}, ${principal.user.id}, ${size_bytes}, ${content_hash}, ${expiresAt})`;
  // Its validation follows the PUT: a validation thread starts meanwhile.
  validationPool().warm();
  const path = signUploadUrl(
    { target: id, expiresAt, maxBytes: MAX_UPLOAD_BYTES, contentHash: content_hash },
    services.signingSecret,
  );
  return {
    upload_id: id,
    upload_url: `${baseUrl}${path}`,
    expires_at: expiresAt.toISOString(),
    max_bytes: MAX_UPLOAD_BYTES,
  };
}
