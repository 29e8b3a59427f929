import type { SkillRequirement } from "@svc/schemas";
import type { BlobStore } from "../core/blobs/blob-store.ts";
import type { Sql } from "../core/db/connect-sql.ts";
import { referencedBlobPresent } from "../downloads/blob-presence.ts";
import { blobTarget } from "../downloads/download-target.ts";
import type { SignedDownloadLink } from "../downloads/signed-download.ts";
import { skillVersionUri } from "./skill-uris.ts";
import { SKILL_ENTRY, type SkillFile, type SkillVersionRow } from "./skill-version-row.ts";

/** One file of a skill entry; the download fields are absent when the bytes are unavailable. */
export interface SkillFileEntry {
  path: string;
  resource_uri: string;
  content_hash: string;
  size_bytes: number;
  download_url?: string;
  expires_at?: string;
}

/** One `skill_resources` entry of the get_problem envelope (spec 4.1); SKILL.md fields on top. */
export interface SkillResourceEntry {
  skill_version_id: string;
  requirement: SkillRequirement;
  entry_uri: string;
  manifest_uri: string;
  content_hash: string | null;
  size_bytes: number | null;
  download_url?: string;
  expires_at?: string;
  files: SkillFileEntry[];
}

/**
 * The envelope's `skill_resources`: one per `skill_ref`, in the revision's order, each with every
 * file of the snapshot. The revision pins them, so whoever may read the revision may read them.
 * A file whose bytes the store lacks carries no download entry rather than a link that fails.
 */
export async function skillResourceEntries(
  sql: Sql,
  blobs: BlobStore,
  skillRefs: ReadonlyArray<{ skill_version_id: string; requirement: SkillRequirement }>,
  sign: (target: string) => SignedDownloadLink,
): Promise<SkillResourceEntry[]> {
  if (skillRefs.length === 0) return [];
  const ids = skillRefs.map((ref) => ref.skill_version_id);
  const rows = await sql<SkillVersionRow[]>`
    select sv.*, s.publisher_user_id from skill_versions sv join skills s on s.id = sv.skill_id
    where sv.id = any(${ids})`;
  const byId = new Map(rows.map((row) => [row.id, row]));
  const entries: SkillResourceEntry[] = [];
  for (const ref of skillRefs) {
    const version = byId.get(ref.skill_version_id);
    const files = version
      ? await Promise.all(version.files.map((file) => fileEntry(blobs, version.id, file, sign)))
      : [];
    const entry = files.find((file) => file.path === SKILL_ENTRY);
    entries.push({
      skill_version_id: ref.skill_version_id,
      requirement: ref.requirement,
      entry_uri: skillVersionUri(ref.skill_version_id, SKILL_ENTRY),
      manifest_uri: skillVersionUri(ref.skill_version_id),
      content_hash: entry?.content_hash ?? null,
      size_bytes: entry?.size_bytes ?? null,
      ...(entry?.download_url ? { download_url: entry.download_url, expires_at: entry.expires_at } : {}),
      files,
    });
  }
  return entries;
}

async function fileEntry(
  blobs: BlobStore,
  skillVersionId: string,
  file: SkillFile,
  sign: (target: string) => SignedDownloadLink,
): Promise<SkillFileEntry> {
  const available = await referencedBlobPresent(blobs, file.content_hash);
  return {
    path: file.path,
    resource_uri: skillVersionUri(skillVersionId, file.path),
    content_hash: file.content_hash,
    size_bytes: file.size_bytes,
    ...(available ? sign(blobTarget(file.content_hash)) : {}),
  };
}
