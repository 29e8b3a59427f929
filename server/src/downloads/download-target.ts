import { IdPrefix, idPatternSource } from "@svc/schemas";
/**
 * The targets `/dl/` serves (signing treats them as opaque strings):
 *
 * - `blob:sha256:<hex>`: stored bytes by hash, used for SkillVersion files;
 * - `reference:<prv_id>/<key>`: the bytes bound to one reference slot of one revision, so the
 *   route re-checks the Problem's visibility and sealing when the link is used;
 * - `artifact:<art_id>`: one Artifact, so a link made before a withdrawal answers 410 after it.
 */
export type DownloadTarget =
  | { kind: "blob"; contentHash: string }
  | { kind: "reference"; revisionId: string; key: string }
  | { kind: "artifact"; artifactId: string };

const BLOB = /^blob:(sha256:[0-9a-f]{64})$/;
const ARTIFACT = new RegExp(`^artifact:(${idPatternSource(IdPrefix.artifact)})$`);
const REFERENCE = new RegExp(
  `^reference:(${idPatternSource(IdPrefix.problemRevision)})/([a-z0-9]+(?:_[a-z0-9]+)*)$`,
);

/** The target string of a blob. */
export function blobTarget(contentHash: string): string {
  return `blob:${contentHash}`;
}

/** The target string of one reference binding. */
export function referenceTarget(revisionId: string, key: string): string {
  return `reference:${revisionId}/${key}`;
}

/** The target a signed string names, or null when `/dl/` serves no such target. */
export function parseDownloadTarget(target: string): DownloadTarget | null {
  const blob = BLOB.exec(target);
  if (blob) return { kind: "blob", contentHash: blob[1]! };
  const reference = REFERENCE.exec(target);
  if (reference) return { kind: "reference", revisionId: reference[1]!, key: reference[2]! };
  const artifact = ARTIFACT.exec(target);
  if (artifact) return { kind: "artifact", artifactId: artifact[1]! };
  return null;
}
