import type { FastifyReply } from "fastify";
import { ServiceError } from "../../core/errors/service-error.ts";
import type { Services } from "../../core/services/services.ts";

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
    .header("cache-control", "private, max-age=0");
  if (filename && /^[A-Za-z0-9._-]{1,255}$/.test(filename)) {
    reply.header("content-disposition", `inline; filename="${filename}"`);
  }
  return reply.send(stream);
}
