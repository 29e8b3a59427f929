import { referenceTarget } from "../../../downloads/download-target.ts";
import { readBlobBytes } from "../../../downloads/read-blob-bytes.ts";
import { signedDownloads } from "../../../downloads/signed-download.ts";
import { resolveReference } from "../../../sealing/resolve-reference.ts";
import { viewerOf } from "../../../visibility/viewer.ts";
import { INLINE_RESOURCE_LIMIT, resourceBytes, resourceJson } from "./resource-bytes.ts";
import type { ResourceTemplate } from "./resource-template.ts";

/**
 * `svc://problem-revisions/{problem_revision_id}/reference/{key}` (spec 4.1): the bytes of a
 * bound input, inline up to 5 MiB. Larger public inputs give `{size_bytes, content_hash,
 * download_url, expires_at}`; a larger sealed one (managers only) gives the authenticated route
 * instead, since managers get no transferable link. A linked input gives a JSON pointer.
 * Every content entry carries `_meta: {content_hash, size_bytes}` of the binding.
 */
export const referenceResource: ResourceTemplate = {
  name: "problem-revision-reference",
  uriTemplate: "svc://problem-revisions/{problem_revision_id}/reference/{key}",
  title: "Reference input of a problem revision",
  description:
    "The bytes bound to one reference slot of a problem revision: text when UTF-8, else base64; above 5 MB a " +
    "signed download link; a linked input gives {linked: true, url, ...}. Sealed inputs: managers only.",
  async read(context, uri, variables) {
    const { sql, blobs, clock } = context.services;
    const viewer = viewerOf(context.principal);
    const revisionId = variables.problem_revision_id ?? "";
    const key = variables.key ?? "";
    const { binding, seal } = await resolveReference(sql, viewer, revisionId, key, clock());
    const meta = { content_hash: binding.content_hash, size_bytes: binding.size_bytes };
    if (binding.url !== undefined) {
      return [
        resourceJson(
          uri,
          {
            linked: true,
            url: binding.url,
            media_type: binding.media_type,
            filename: binding.filename ?? null,
            content_hash: binding.content_hash,
            size_bytes: binding.size_bytes,
          },
          meta,
        ),
      ];
    }
    if (binding.size_bytes > INLINE_RESOURCE_LIMIT) {
      const pointer = seal.sealed
        ? { api_url: `${context.baseUrl}/api/problem-revisions/${revisionId}/reference/${key}` }
        : signedDownloads(context.services, context)(referenceTarget(revisionId, key));
      return [
        resourceJson(
          uri,
          { size_bytes: binding.size_bytes, content_hash: binding.content_hash, ...pointer },
          meta,
        ),
      ];
    }
    return [resourceBytes(uri, await readBlobBytes(blobs, binding.content_hash), binding.media_type, meta)];
  },
};
