import type { BlobStore } from "../core/blobs/blob-store.ts";
import type { Services } from "../core/services/services.ts";
import { blobTarget } from "../downloads/download-target.ts";
import { signedDownloads } from "../downloads/signed-download.ts";
import type { Caller } from "../users/caller.ts";
import { buildToolkit, TOOLKIT_VERSION } from "./build-toolkit.ts";

/** What get_authoring_toolkit returns (spec 4.1). */
export interface AuthoringToolkit {
  version: string;
  content_hash: string;
  size_bytes: number;
  /** The bundle is JavaScript: it runs wherever a recent Node runs. */
  platforms: string[];
  /** The Node versions it runs on. */
  requires: string;
  /** Signed for 15 minutes; no bearer needed. */
  download_url: string;
  expires_at: string;
}

/** The operating systems Node ships for; one JavaScript file serves them all. */
export const TOOLKIT_PLATFORMS = ["linux", "darwin", "win32"] as const;

/** The toolkit stored in each blob store, built once per process (the sources do not change while it runs). */
const stored = new WeakMap<BlobStore, Promise<{ content_hash: string; size_bytes: number }>>();

/**
 * get_authoring_toolkit (spec 4.1): the `svc` command line as one file (esbuild, like the
 * Action's bundle) that lints, tests and drafts packages on a recent Node with nothing installed,
 * served through a signed 15-minute download of its bytes in the blob store.
 */
export async function getAuthoringToolkit(services: Services, caller: Caller): Promise<AuthoringToolkit> {
  let bundle = stored.get(services.blobs);
  if (!bundle) {
    bundle = buildToolkit().then((bytes) => services.blobs.put(bytes));
    // A failed build is not remembered: the next call tries again.
    bundle.catch(() => stored.delete(services.blobs));
    stored.set(services.blobs, bundle);
  }
  const { content_hash, size_bytes } = await bundle;
  const link = signedDownloads(services, caller)(blobTarget(content_hash));
  return {
    version: TOOLKIT_VERSION,
    content_hash,
    size_bytes,
    platforms: [...TOOLKIT_PLATFORMS],
    requires: "node >= 22.18",
    ...link,
  };
}
