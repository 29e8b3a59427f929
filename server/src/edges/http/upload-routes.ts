import type { Readable } from "node:stream";
import type { FastifyPluginAsync } from "fastify";
import { MAX_ARTIFACT_BYTES } from "../../artifacts/artifact-limits.ts";
import { ARTIFACT_UPLOAD_TARGET, receiveArtifactUpload } from "../../artifacts/receive-artifact-upload.ts";
import { receiveAuthoringUpload } from "../../authoring/receive-authoring-upload.ts";
import { MAX_UPLOAD_BYTES } from "../../authoring/upload-state.ts";
import { ServiceError } from "../../core/errors/service-error.ts";
import type { Services } from "../../core/services/services.ts";
import { SIGNED_UPLOAD_PREFIX, verifySignedUploadPath } from "../../core/signing/signed-upload-url.ts";

/**
 * `PUT /up/<payload>.<signature>`: the signed upload URLs request_authoring_upload and
 * request_artifact_upload hand out (the signed target says which: `aup_` or `aru_`). No
 * bearer: the signature is the capability. The body is never parsed or buffered: every content
 * type (this plugin's parsers only) hands fastify the raw stream, which goes straight into the
 * blob store while it is hashed and counted.
 */
export const uploadRoutes: FastifyPluginAsync<{ services: Services }> = async (app, { services }) => {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(["application/zip", "application/octet-stream"], passRawStream);
  app.addContentTypeParser("*", passRawStream);

  app.put(
    // A wildcard, not a `:token` parameter: a signed token is longer than fastify's parameter limit.
    `${SIGNED_UPLOAD_PREFIX}*`,
    // The blob store enforces the signed limit while streaming; this only stops fastify's default.
    { bodyLimit: Math.max(MAX_UPLOAD_BYTES, MAX_ARTIFACT_BYTES) + 1 },
    async (request, reply) => {
      const path = request.url.split("?")[0]!;
      if (path !== request.url) {
        throw new ServiceError(
          "signed_url_invalid",
          "this upload URL is invalid: send it exactly as request_authoring_upload returned it, without a query string",
        );
      }
      try {
        const verified = verifySignedUploadPath(path, services.signingSecret, services.clock());
        if (verified.ok && ARTIFACT_UPLOAD_TARGET.test(verified.target)) {
          return await receiveArtifactUpload(
            services,
            verified,
            (request.body as Readable | undefined) ?? request.raw,
          );
        }
        return await receiveAuthoringUpload(
          services,
          path,
          (request.body as Readable | undefined) ?? request.raw,
        );
      } catch (error) {
        // The client may still be sending: close the connection rather than read the rest.
        reply.header("connection", "close");
        throw error;
      }
    },
  );
};

function passRawStream(
  _request: unknown,
  payload: NodeJS.ReadableStream,
  done: (error: Error | null, body?: unknown) => void,
): void {
  done(null, payload);
}
