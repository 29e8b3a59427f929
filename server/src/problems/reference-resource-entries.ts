import type { BlobStore } from "../core/blobs/blob-store.ts";
import { referencedBlobPresent } from "../downloads/blob-presence.ts";
import { referenceTarget } from "../downloads/download-target.ts";
import type { SignedDownloadLink } from "../downloads/signed-download.ts";
import type { ProblemRevision } from "./problem-revision.ts";
import { referenceSeal } from "./reference-seal.ts";
import { referenceUri } from "./reference-uri.ts";

/** One `reference_resources` entry of the get_problem envelope (spec 4.1). */
export interface ReferenceResourceEntry {
  key: string;
  media_type: string;
  size_bytes: number;
  content_hash: string;
  resource_uri?: string;
  download_url?: string;
  expires_at?: string;
  sealed: boolean;
  sealed_until: string | null;
  url?: string;
}

/**
 * The envelope's `reference_resources`: one per bound input, in binding order. While sealed the
 * entry keeps its metadata and loses `resource_uri`, `download_url` and `expires_at`, for managers
 * too (they read through authenticated routes). A linked binding gives its `url` and a resource
 * URI (a JSON pointer) but no signed link: the service holds no bytes to sign for.
 */
export async function referenceResourceEntries(
  blobs: BlobStore,
  revision: ProblemRevision,
  sealedSlots: ReadonlySet<string>,
  now: Date,
  sign: (target: string) => SignedDownloadLink,
): Promise<ReferenceResourceEntry[]> {
  return Promise.all(
    revision.verifier_input_bindings.map(async (binding): Promise<ReferenceResourceEntry> => {
      const seal = referenceSeal(binding, revision.sealing, sealedSlots, now);
      const base = {
        key: binding.key,
        media_type: binding.media_type,
        size_bytes: binding.size_bytes,
        content_hash: binding.content_hash,
      };
      if (seal.sealed) return { ...base, ...seal };
      const resource_uri = referenceUri(revision.id, binding.key);
      if (binding.url !== undefined) return { ...base, resource_uri, ...seal, url: binding.url };
      const available = await referencedBlobPresent(blobs, binding.content_hash);
      return {
        ...base,
        resource_uri,
        ...(available ? sign(referenceTarget(revision.id, binding.key)) : {}),
        ...seal,
      };
    }),
  );
}
