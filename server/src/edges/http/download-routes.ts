import type { FastifyPluginAsync } from "fastify";
import { artifactDownload } from "../../artifacts/artifact-download.ts";
import { ServiceError } from "../../core/errors/service-error.ts";
import type { Services } from "../../core/services/services.ts";
import { SIGNED_DOWNLOAD_PREFIX, verifySignedPath } from "../../core/signing/signed-url.ts";
import { parseDownloadTarget } from "../../downloads/download-target.ts";
import { loadReference, sealedError } from "../../sealing/resolve-reference.ts";
import { canReadSkillVersion } from "../../skills/read-skill-version.ts";
import { type Viewer, viewerOf } from "../../visibility/viewer.ts";
import { canReadWork } from "../../visibility/work-access.ts";
import { optionalPrincipal } from "./request-principal.ts";
import { sendBlob } from "./send-blob.ts";

/**
 * `GET /dl/<payload>.<signature>` (spec 4.1, 5.5): a signed link read without a bearer.
 *
 * - Malformed, tampered, signed for another target or expired: 403 `signed_url_invalid`, all
 *   alike (the reason goes to the log only). Expiry is 403, not 410: 410 means the target
 *   itself is gone (withdrawn, or bytes no longer stored), which a fresh link cannot fix.
 * - Private work (a Problem effectively private, or a skill only private work uses) also needs
 *   `Authorization: Bearer` of a user allowed to read it: 401 without one, 404 for anyone else.
 * - A withdrawn Artifact answers 410 `gone` (spec 4.1); see artifactDownload.
 * - Sealed reference inputs are never served here, managers included (spec 5.7).
 * - A linked reference answers 302 to its url. Every answer carries `x-svc-content-hash`.
 */
export const downloadRoutes: FastifyPluginAsync<{ services: Services }> = async (app, { services }) => {
  app.get(`${SIGNED_DOWNLOAD_PREFIX}*`, async (request, reply) => {
    const verified = verifySignedPath(request.url, services.signingSecret, services.clock());
    if (!verified.ok) {
      request.log.info({ reason: verified.reason }, "signed download refused");
      throw refused();
    }
    const target = parseDownloadTarget(verified.target);
    if (target === null) {
      request.log.info({ target: verified.target }, "signed download names no download target");
      throw refused();
    }
    const principal = await optionalPrincipal(services, request);
    const viewer = principal ? viewerOf(principal) : null;

    if (target.kind === "blob") {
      const mediaType = await skillFileMediaType(services, viewer, target.contentHash);
      return sendBlob(services, reply, target.contentHash, mediaType);
    }

    if (target.kind === "artifact") {
      const download = await artifactDownload(services, viewer, target.artifactId);
      return sendBlob(services, reply, download.contentHash, download.mediaType, download.filename);
    }

    const found = await loadReference(services.sql, target.revisionId, target.key, services.clock());
    if (!found) {
      request.log.info({ target: verified.target }, "signed download names nothing");
      throw refused();
    }
    if (!canReadWork(viewer, found.problem)) throw privateWork(viewer);
    if (found.seal.sealed) throw sealedError(target.revisionId, target.key, found.seal.sealed_until);
    reply.header("x-svc-content-hash", found.binding.content_hash);
    if (found.binding.url !== undefined) return reply.redirect(found.binding.url, 302);
    return sendBlob(
      services,
      reply,
      found.binding.content_hash,
      found.binding.media_type,
      found.binding.filename,
    );
  });
};

function refused(): ServiceError {
  return new ServiceError(
    "signed_url_invalid",
    "this download link is invalid or expired: ask for a fresh download_url (get_problem or the resource)",
  );
}

/** 401 asks an anonymous holder to sign in; a signed-in user who may not read it sees not_found. */
function privateWork(viewer: Viewer | null): ServiceError {
  if (viewer === null) {
    return new ServiceError(
      "unauthorized",
      "this download belongs to private work: send Authorization: Bearer <token> of its owner or an administrator",
    );
  }
  return new ServiceError("not_found", "no such download for this user");
}

/**
 * The media type of a blob served as a skill file, after checking who may read it: when some
 * SkillVersions hold the bytes and none of them is readable anonymously, only a viewer who may
 * read one of them gets the bytes. Bytes no SkillVersion holds (a toolkit bundle) are served on
 * the signature alone. Each candidate is checked by id, which keeps every query a point lookup.
 */
async function skillFileMediaType(
  services: Services,
  viewer: Viewer | null,
  contentHash: string,
): Promise<string> {
  const { sql } = services;
  const holders = await sql<{ id: string; media_type: string }[]>`
    select sv.id, f->>'media_type' as media_type
    from skill_versions sv, jsonb_array_elements(sv.files) f
    where sv.files @> jsonb_build_array(jsonb_build_object('content_hash', ${contentHash}::text))
      and f->>'content_hash' = ${contentHash}
    order by sv.created_at, sv.id
    limit 20`;
  if (holders.length === 0) return "application/octet-stream";
  for (const candidate of viewer === null ? [null] : [null, viewer]) {
    for (const holder of holders) {
      if (await canReadSkillVersion(sql, candidate, holder.id)) return holder.media_type;
    }
  }
  throw privateWork(viewer);
}
