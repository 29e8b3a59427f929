import { join } from "node:path";
import { assertContentHash } from "./content-hash.ts";

/**
 * Where the local store keeps a blob: `<root>/sha256/<aa>/<bb>/<hex>`. Two levels of 256
 * directories keep each directory small with millions of blobs. The hash is validated first, so
 * the result is always inside `root`.
 */
export function blobPath(root: string, hash: string): string {
  assertContentHash(hash);
  const hex = hash.slice("sha256:".length);
  return join(root, "sha256", hex.slice(0, 2), hex.slice(2, 4), hex);
}
