import { ServiceError } from "../../../core/errors/service-error.ts";
import { blobTarget } from "../../../downloads/download-target.ts";
import { readBlobBytes } from "../../../downloads/read-blob-bytes.ts";
import { signedDownloads } from "../../../downloads/signed-download.ts";
import { listRecentSkillEntries } from "../../../skills/list-recent-skill-entries.ts";
import { readSkillVersion } from "../../../skills/read-skill-version.ts";
import { skillVersionUri } from "../../../skills/skill-uris.ts";
import { viewerOf } from "../../../visibility/viewer.ts";
import { INLINE_RESOURCE_LIMIT, resourceBytes, resourceJson } from "./resource-bytes.ts";
import type { ResourceTemplate } from "./resource-template.ts";

/**
 * `svc://skill-versions/{skill_version_id}/{+path}` (spec 4.1): any file of an immutable
 * SkillVersion snapshot (text when UTF-8, else base64; above 5 MiB a signed link), or with an
 * empty path the manifest: the version's identity and every file with its resource URI.
 * resources/list offers the SKILL.md of recent non-yanked versions the caller may discover.
 */
export const skillVersionResource: ResourceTemplate = {
  name: "skill-version-file",
  uriTemplate: "svc://skill-versions/{skill_version_id}/{+path}",
  title: "Skill version file",
  description:
    "A file of an immutable skill version snapshot; an empty path gives the JSON manifest of its files. " +
    "Start with SKILL.md.",
  async read(context, uri, variables) {
    const { sql, blobs } = context.services;
    const viewer = viewerOf(context.principal);
    const version = await readSkillVersion(sql, viewer, variables.skill_version_id ?? "");
    const path = variables.path ?? "";
    if (path === "") {
      return [
        resourceJson(uri, {
          skill_version_id: version.id,
          skill_id: version.skill_id,
          name: version.name,
          description: version.description,
          version_number: version.version_number,
          content_hash: version.content_hash,
          created_at: version.created_at.toISOString(),
          yanked_at: version.yanked_at?.toISOString() ?? null,
          files: version.files.map((file) => ({
            ...file,
            resource_uri: skillVersionUri(version.id, file.path),
          })),
        }),
      ];
    }
    const file = version.files.find((f) => f.path === path);
    if (!file) {
      throw new ServiceError("not_found", `skill version ${version.id} has no file "${path}"`, {
        skill_version_id: version.id,
        path,
      });
    }
    const meta = { content_hash: file.content_hash, size_bytes: file.size_bytes };
    if (file.size_bytes > INLINE_RESOURCE_LIMIT) {
      const link = signedDownloads(context.services, context)(blobTarget(file.content_hash));
      return [
        resourceJson(uri, { size_bytes: file.size_bytes, content_hash: file.content_hash, ...link }, meta),
      ];
    }
    return [resourceBytes(uri, await readBlobBytes(blobs, file.content_hash), file.media_type, meta)];
  },
  async list(context) {
    return listRecentSkillEntries(context.services.sql, viewerOf(context.principal));
  },
};
