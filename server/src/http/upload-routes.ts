import type { Readable } from "node:stream";
import type { FastifyPluginAsync } from "fastify";
import { receiveAuthoringUpload } from "../authoring/receive-authoring-upload.ts";
import { MAX_UPLOAD_BYTES } from "../authoring/upload-state.ts";
import type { Services } from "../context/services.ts";
import { ServiceError } from "../errors/service-error.ts";
import { SIGNED_UPLOAD_PREFIX } from "./signed-upload-url.ts";

/**
 * `PUT /up/<payload>.<signature>`: the signed upload URL request_authoring_upload hands out. No
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
    { bodyLimit: MAX_UPLOAD_BYTES + 1 },
    async (request, reply) => {
      const path = request.url.split("?")[0]!;
      if (path !== request.url) {
        throw new ServiceError(
          "signed_url_invalid",
          "this upload URL is invalid: send it exactly as request_authoring_upload returned it, without a query string",
        );
      }
      try {
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
