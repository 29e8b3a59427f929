import type { RequestedUpload } from "@svc/schemas";
import { type ContentHash, sha256 } from "../hash/sha256.ts";
import type { Deflate } from "../tree/deflate-cache.ts";
import type { FileTree } from "../tree/file-tree.ts";
import { zipTree } from "../tree/zip-tree.ts";
import { type Publication, readPublication, readValidation, type Validation } from "./authoring-results.ts";
import { ServiceCallError } from "./service-call-error.ts";
import type { ServiceClient } from "./service-client.ts";
import { subsetTree } from "./subset-tree.ts";
import { realSleep } from "./with-retries.ts";

/** A packed shard: its deterministic ZIP and that archive's content hash. */
export interface Archive {
  bytes: Buffer;
  content_hash: ContentHash;
  size_bytes: number;
}

/**
 * Packs `paths` of `tree` (all of it when omitted) into a deterministic ZIP; `deflate` may be a
 * DeflateCache's (the same bytes).
 */
export async function packArchive(
  tree: FileTree,
  paths?: readonly string[],
  deflate?: Deflate,
): Promise<Archive> {
  const bytes = await zipTree(paths ? subsetTree(tree, paths) : tree, deflate);
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

/** validate_authoring_upload; with `wait`, also waits for queued conformance fixtures (awaitConformance). */
export async function validateUpload(
  client: ServiceClient,
  uploadId: string,
  wait?: Parameters<typeof awaitConformance>[3],
): Promise<Validation> {
  const envelope = await client.callTool("validate_authoring_upload", { upload_id: uploadId });
  return readValidation(wait ? await awaitConformance(client, uploadId, envelope, wait) : envelope);
}

/** How long `svc upload` and the GitHub check wait for a validation's queued conformance fixtures. */
export const CONFORMANCE_WAIT_MS = 10 * 60 * 1000;
/** How often they ask again meanwhile. */
export const CONFORMANCE_POLL_MS = 5000;

/**
 * Waits for a validation whose `conformance_state` is `pending` (sandboxed fixtures queued in the
 * service's sandbox budget) by revalidating every CONFORMANCE_POLL_MS, which reads the stored
 * result without running anything again, for at most CONFORMANCE_WAIT_MS of waiting. Returns the
 * last envelope: `complete`, or still `pending` when the bound passed. `onProgress` hears each
 * wait with the time waited so far.
 */
export async function awaitConformance(
  client: ServiceClient,
  uploadId: string,
  envelope: Record<string, unknown>,
  options: { sleep?: (ms: number) => Promise<void>; onProgress?: (waitedMs: number) => void } = {},
): Promise<Record<string, unknown>> {
  const sleep = options.sleep ?? realSleep;
  let current = envelope;
  for (let waited = 0; current.conformance_state === "pending" && waited < CONFORMANCE_WAIT_MS; ) {
    options.onProgress?.(waited);
    await sleep(CONFORMANCE_POLL_MS);
    waited += CONFORMANCE_POLL_MS;
    current = await client.callTool("validate_authoring_upload", { upload_id: uploadId });
  }
  return current;
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
