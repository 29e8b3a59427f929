import type { RequestedUpload } from "@svc/schemas";
import { type ContentHash, sha256 } from "../hash/sha256.ts";
import type { FileTree } from "../tree/file-tree.ts";
import { zipTree } from "../tree/zip-tree.ts";
import { type Publication, readPublication, readValidation, type Validation } from "./authoring-results.ts";
import { ServiceCallError } from "./service-call-error.ts";
import type { ServiceClient } from "./service-client.ts";
import { subsetTree } from "./subset-tree.ts";

/** A packed shard: its deterministic ZIP and that archive's content hash. */
export interface Archive {
  bytes: Buffer;
  content_hash: ContentHash;
  size_bytes: number;
}

/** Packs `paths` of `tree` (all of it when omitted) into a deterministic ZIP. */
export async function packArchive(tree: FileTree, paths?: readonly string[]): Promise<Archive> {
  const bytes = await zipTree(paths ? subsetTree(tree, paths) : tree);
  return { bytes, content_hash: sha256(bytes), size_bytes: bytes.byteLength };
}

/** request_authoring_upload for an archive. */
export async function requestUpload(client: ServiceClient, archive: Archive): Promise<RequestedUpload> {
  const envelope = await client.callTool("request_authoring_upload", {
    size_bytes: archive.size_bytes,
    content_hash: archive.content_hash,
  });
  if (typeof envelope.upload_id !== "string" || typeof envelope.upload_url !== "string") {
    throw new ServiceCallError(
      "invalid_response",
      "request_authoring_upload returned no upload_id and upload_url",
      {
        details: { envelope },
        transient: false,
      },
    );
  }
  return envelope as unknown as RequestedUpload;
}

/**
 * PUTs the archive. `attempt` > 1 means an earlier PUT may have landed with its answer lost; a
 * 409 then means the bytes are already stored, and validation will say so if they are not.
 */
export async function putArchive(
  client: ServiceClient,
  upload: RequestedUpload,
  archive: Archive,
  attempt = 1,
): Promise<void> {
  try {
    await client.putUpload(upload.upload_url, archive.bytes);
  } catch (error) {
    if (attempt > 1 && error instanceof ServiceCallError && error.details.status === 409) return;
    throw error;
  }
}

/** validate_authoring_upload. */
export async function validateUpload(client: ServiceClient, uploadId: string): Promise<Validation> {
  return readValidation(await client.callTool("validate_authoring_upload", { upload_id: uploadId }));
}

/** publish_authoring_upload; idempotent on the service's side, so a retry is safe. */
export async function publishUpload(
  client: ServiceClient,
  uploadId: string,
  planHash: string,
): Promise<Publication> {
  return readPublication(
    await client.callTool("publish_authoring_upload", { upload_id: uploadId, plan_hash: planHash }),
  );
}
