import type { BlobStore } from "../core/blobs/blob-store.ts";
import { LruMap } from "../core/cache/lru-map.ts";

/** Content hashes each store was seen to hold, per store; a few MB of hashes at most. */
const present = new WeakMap<BlobStore, LruMap<string, true>>();
const HASHES_REMEMBERED = 50_000;

/**
 * Whether `blobs` holds the bytes of a blob that an immutable record (a revision's binding, a
 * SkillVersion's file) references, for the envelopes' download links. A presence is remembered:
 * a blob is content-addressed and never rewritten, and only blobs no record references are ever
 * deleted (redact-stage-log.ts), so what such a record referenced and was present stays present.
 * An absence is asked again every time (the bytes may still arrive). Without it, every link of
 * every get_problem cost a stat of the file, or a HeadObject against S3.
 */
export async function referencedBlobPresent(blobs: BlobStore, hash: string): Promise<boolean> {
  let known = present.get(blobs);
  if (known === undefined) {
    known = new LruMap(HASHES_REMEMBERED);
    present.set(blobs, known);
  }
  if (known.get(hash)) return true;
  const has = await blobs.has(hash);
  if (has) known.set(hash, true);
  return has;
}
