import { artifactTarget } from "../../../artifacts/artifact-target.ts";
import { readArtifact } from "../../../artifacts/read-artifact.ts";
import { ServiceError } from "../../../core/errors/service-error.ts";
import { readBlobBytes } from "../../../downloads/read-blob-bytes.ts";
import { signedDownloads } from "../../../downloads/signed-download.ts";
import { viewerOf } from "../../../visibility/viewer.ts";
import { INLINE_RESOURCE_LIMIT, resourceBytes, resourceJson } from "./resource-bytes.ts";
import type { ResourceTemplate } from "./resource-template.ts";

/**
 * `svc://artifacts/{artifact_id}` (spec 4.1): an Artifact's bytes for its owner and
 * administrators (canReadArtifact): text when valid UTF-8 (a byte order mark kept), otherwise a
 * base64 blob; above 5 MiB the JSON `{size_bytes, content_hash, download_url, expires_at}`. A
 * withdrawn Artifact is `gone`. Every entry carries `_meta: {content_hash, size_bytes}`.
 */
export const artifactResource: ResourceTemplate = {
  name: "artifact",
  uriTemplate: "svc://artifacts/{artifact_id}",
  title: "Artifact",
  description:
    "The bytes of one of your Artifacts, or of a Submission you review: text when UTF-8, else base64; above 5 MB a signed download link. " +
    "Withdrawn Artifacts are not served.",
  async read(context, uri, variables) {
    const { sql, blobs } = context.services;
    const artifact = await readArtifact(sql, viewerOf(context.principal), variables.artifact_id ?? "", {
      access: "read",
      now: context.services.clock(),
    });
    if (artifact.withdrawn_at !== null) {
      throw new ServiceError("gone", `artifact ${artifact.id} was withdrawn and is no longer served`, {
        artifact_id: artifact.id,
        withdrawn_at: artifact.withdrawn_at.toISOString(),
      });
    }
    const size = Number(artifact.size_bytes);
    const meta = { content_hash: artifact.content_hash, size_bytes: size };
    if (size > INLINE_RESOURCE_LIMIT) {
      const link = signedDownloads(context.services, context)(artifactTarget(artifact.id));
      return [resourceJson(uri, { size_bytes: size, content_hash: artifact.content_hash, ...link }, meta)];
    }
    return [resourceBytes(uri, await readBlobBytes(blobs, artifact.content_hash), artifact.media_type, meta)];
  },
};
