import type { Sql } from "../core/db/connect-sql.ts";
import {
  type ConsistencyProof,
  consistencyProof,
  type InclusionProof,
  inclusionProof,
  leafHashAt,
  readCheckpoint,
  type ServedCheckpoint,
} from "./transparency-log.ts";

export interface TransparencyLogView {
  checkpoint: ServedCheckpoint;
  /** With log_index: the entry's leaf hash (base64) and its inclusion proof in `checkpoint`. */
  entry: { log_index: number; leaf_hash: string; inclusion_proof: InclusionProof } | null;
  /** With from_size: the proof that `checkpoint` extends the tree of from_size. */
  consistency_proof: ConsistencyProof | null;
}

/**
 * What anyone may read of the log, with no credential: a signed checkpoint and the proofs asked
 * for against it. Entries are served as leaf hashes; their envelopes go to who may read the run.
 */
export async function readTransparencyLog(
  sql: Sql,
  input: { tree_size?: number | undefined; log_index?: number | undefined; from_size?: number | undefined },
): Promise<TransparencyLogView> {
  const checkpoint = await readCheckpoint(sql, input.tree_size);
  const entry =
    input.log_index === undefined
      ? null
      : {
          log_index: input.log_index,
          leaf_hash: await leafHashAt(sql, input.log_index),
          inclusion_proof: await inclusionProof(sql, input.log_index, checkpoint.tree_size),
        };
  const consistency_proof =
    input.from_size === undefined ? null : await consistencyProof(sql, input.from_size, checkpoint.tree_size);
  return { checkpoint, entry, consistency_proof };
}
