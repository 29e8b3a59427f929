import type { FileTree } from "@svc/app";
import { sha256 } from "@svc/app";
import type { Plan } from "@svc/schemas";
import type { BlobStore } from "../core/blobs/blob-store.ts";

/**
 * Puts into the blob store every file a publication's records point at by hash: skill files,
 * script checker programs, stored (not linked) reference inputs and the conformance fixtures'
 * files (the worker reruns fixtures from the store, long after the upload is gone). The plan names them by content
 * hash only, so the package's files are matched by hash; only files whose size some wanted hash has
 * are hashed. Blobs are content-addressed and puts idempotent, so this runs before the publishing
 * transaction: a failed publication leaves at most unreferenced blobs, never a record without bytes.
 * Hashes already in the store are skipped, and the package is unpacked (`tree`) only when some
 * blob is missing: a republication of unchanged files unpacks nothing.
 */
export async function storePackageBytes(
  blobs: BlobStore,
  tree: () => Promise<FileTree>,
  plan: Plan,
): Promise<void> {
  const wanted = new Map<string, number>();
  for (const skill of Object.values(plan.skills)) {
    for (const file of skill.files) wanted.set(file.content_hash, file.size_bytes);
  }
  for (const implementation of Object.values(plan.verifier_implementations)) {
    if (implementation.program)
      wanted.set(implementation.program.content_hash, implementation.program.size_bytes);
  }
  for (const contract of Object.values(plan.verifier_contracts)) {
    for (const fixture of contract.document.conformance_fixtures) {
      // A valid plan states every fixture hash (lint refuses unstated ones).
      for (const input of [
        ...Object.values(fixture.inputs.reference ?? {}),
        ...(fixture.inputs.artifacts ?? []),
      ]) {
        if (input.content_hash !== undefined && input.size_bytes !== undefined)
          wanted.set(input.content_hash, input.size_bytes);
      }
    }
  }
  for (const problem of plan.problems) {
    for (const input of problem.reference_inputs) {
      if (input.url === null) wanted.set(input.content_hash, input.size_bytes);
    }
  }
  const stored = await Promise.all(
    [...wanted.keys()].map(async (hash) => [hash, await blobs.has(hash)] as const),
  );
  for (const [hash, has] of stored) if (has) wanted.delete(hash);
  if (wanted.size === 0) return;
  const files = await tree();
  const sizes = new Set(wanted.values());
  const found: { bytes: Uint8Array; hash: string }[] = [];
  for (const path of files.paths()) {
    if (wanted.size === 0) break;
    if (!sizes.has(files.size(path)!)) continue;
    const bytes = await files.read(path);
    const hash = sha256(bytes);
    if (!wanted.has(hash)) continue;
    found.push({ bytes, hash });
    wanted.delete(hash);
  }
  if (wanted.size > 0) {
    // Validation planned these hashes from these very files, so a miss is the service's own fault.
    throw new Error(`the package lacks files the plan names: ${[...wanted.keys()].join(", ")}`);
  }
  // Each put waits for its file to reach the disk (fsync); several at once share that wait: a
  // first publication of 300 reference inputs took 1 s one put at a time.
  let next = 0;
  const putNext = async (): Promise<void> => {
    while (next < found.length) {
      const { bytes, hash } = found[next++]!;
      await blobs.put(bytes, { expectedHash: hash });
    }
  };
  await Promise.all(Array.from({ length: Math.min(PARALLEL_PUTS, found.length) }, putNext));
}

/** Blob puts in flight at once during a publication. */
const PARALLEL_PUTS = 16;
