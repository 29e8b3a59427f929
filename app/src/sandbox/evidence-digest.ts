import { type ContentHash, hashJson, sha256 } from "../hash/sha256.ts";
import type { EvidenceFile } from "./checker-job.ts";

/**
 * The tree digest of `/output/evidence/` recorded as `evidence_hash` (format 1):
 *
 *   sha256 of the RFC 8785 canonical JSON of
 *   {"format": "svc-evidence-tree/1", "entries": [...]}
 *
 * with one entry per regular file or symbolic link, sorted by `path` (UTF-16 code units, as
 * canonical JSON sorts keys): `{"path", "type": "file", "content_hash", "size_bytes"}` or
 * `{"path", "type": "symlink", "target"}`. `path` is relative to evidence/ with `/`. A symlink is
 * hashed as a link with its target string and never read through, so a link to a host file
 * cannot pull the file's bytes into the digest. Directories are implied by paths; empty
 * directories, devices and sockets do not count. An empty tree has no digest (null).
 */
export function evidenceDigest(files: readonly EvidenceFile[]): ContentHash | null {
  if (files.length === 0) return null;
  const entries = [...files]
    .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))
    .map((file) =>
      file.link_target !== undefined
        ? { path: file.path, type: "symlink", target: file.link_target }
        : {
            path: file.path,
            type: "file",
            content_hash: file.content_hash ?? sha256(file.bytes),
            size_bytes: file.size_bytes ?? file.bytes.length,
          },
    );
  return hashJson({ format: "svc-evidence-tree/1", entries });
}
