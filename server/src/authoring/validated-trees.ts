import type { FileTree } from "@svc/app";

/**
 * The unpacked package of each recent valid validation in this process, by its archive's content
 * hash, for the publication that usually follows within a second: it stores the package's bytes
 * from this tree instead of unpacking the archive again on the validation pool, which was on the
 * publication's critical path (40-50 ms of a 300-problem campaign's; issue 38). Bounded: at most
 * MAX_BYTES of files, each kept TTL_MS; a publication that finds none (another replica
 * validated, a restart, a long pause, a package over the budget) unpacks the archive as before.
 * The bytes are the archive's, which is content-addressed, so any validation of it serves.
 */
export interface ValidatedTrees {
  remember(contentHash: string, tree: FileTree): void;
  /** The tree validated for `contentHash`, if still held; it is held no longer. */
  take(contentHash: string): FileTree | undefined;
}

/** Bytes of files held at most, all trees together. */
export const MAX_BYTES = 64 * 1024 * 1024;

/** How long a tree is held after its validation. */
export const TTL_MS = 60_000;

export function validatedTrees(options: { maxBytes?: number; ttlMs?: number } = {}): ValidatedTrees {
  const maxBytes = options.maxBytes ?? MAX_BYTES;
  const ttlMs = options.ttlMs ?? TTL_MS;
  /** Oldest first. */
  const held = new Map<string, { tree: FileTree; bytes: number; timer: NodeJS.Timeout }>();
  let total = 0;
  const forget = (contentHash: string) => {
    const entry = held.get(contentHash);
    if (entry === undefined) return;
    clearTimeout(entry.timer);
    held.delete(contentHash);
    total -= entry.bytes;
  };
  return {
    remember(contentHash, tree) {
      forget(contentHash);
      const bytes = tree.paths().reduce((sum, path) => sum + (tree.size(path) ?? 0), 0);
      if (bytes > maxBytes) return;
      for (const oldest of held.keys()) {
        if (total + bytes <= maxBytes) break;
        forget(oldest);
      }
      // Never keeps the process alive: a tree is only worth holding while the service runs.
      const timer = setTimeout(() => forget(contentHash), ttlMs).unref();
      held.set(contentHash, { tree, bytes, timer });
      total += bytes;
    },
    take(contentHash) {
      const tree = held.get(contentHash)?.tree;
      forget(contentHash);
      return tree;
    },
  };
}

let shared: ValidatedTrees | undefined;

/** This process's trees, shared by validation and publication like the validation pool. */
export function sharedValidatedTrees(): ValidatedTrees {
  shared ??= validatedTrees();
  return shared;
}
