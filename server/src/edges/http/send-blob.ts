import type { FastifyReply } from "fastify";
import { ServiceError } from "../../core/errors/service-error.ts";
import type { Services } from "../../core/services/services.ts";

/**
 * Bytes an author or a participant stored are served with the media type they declared, so a
 * browser must never run them as this origin's page: no sniffing, and a sandbox with nothing
 * allowed (an uploaded `text/html` or SVG shows inert, without scripts, forms or same-origin access).
 */
const INERT_BLOB_POLICY = "default-src 'none'; sandbox";

/**
 * Streams a stored blob as the response body with its media type, size and
 * `x-svc-content-hash`. A blob the store no longer holds answers 410 `gone`.
 */
export async function sendBlob(
  services: Services,
  reply: FastifyReply,
  contentHash: string,
  mediaType: string,
  filename?: string,
): Promise<FastifyReply> {
  const stat = await services.blobs.stat(contentHash);
  const stream = stat ? await services.blobs.get(contentHash) : null;
  if (!stat || !stream) {
    throw new ServiceError("gone", `the bytes ${contentHash} are no longer stored`, {
      content_hash: contentHash,
    });
  }
  reply
    .header("content-type", mediaType)
    .header("content-length", String(stat.size_bytes))
    .header("x-svc-content-hash", contentHash)
    .header("cache-control", "private, max-age=0")
    .header("x-content-type-options", "nosniff")
    .header("content-security-policy", INERT_BLOB_POLICY);
  if (filename && /^[A-Za-z0-9._-]{1,255}$/.test(filename)) {
    reply.header("content-disposition", `inline; filename="${filename}"`);
  }
  return reply.send(stream);
}
