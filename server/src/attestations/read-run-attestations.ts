import type { DsseEnvelope, Opening } from "@svc/app";
import { type AttestationReason, IdPrefix, idPattern } from "@svc/schemas";
import type { Sql } from "../core/db/connect-sql.ts";
import { ServiceError } from "../core/errors/service-error.ts";
import { readRunWithholding } from "../sealing/read-run-withholdings.ts";
import { NOTHING_WITHHELD } from "../sealing/run-withholding.ts";
import { readableRunSql } from "../verification/readable-run-sql.ts";
import type { Viewer } from "../visibility/viewer.ts";
import {
  type InclusionProof,
  inclusionProof,
  readCheckpoint,
  type ServedCheckpoint,
} from "./transparency-log.ts";

const RUN_ID = idPattern(IdPrefix.verificationRun);

/** One attestation of a run, with what checks it against the log. */
export interface ServedAttestation {
  log_index: number;
  reason: AttestationReason;
  issued_at: string;
  key_id: string;
  payload_sha256: string;
  supersedes_log_index: number | null;
  envelope: DsseEnvelope;
  /** The openings of its commitments, once nothing is withheld from this reader; else null. */
  openings: Record<string, Opening> | null;
  /** Its inclusion proof in `checkpoint`. */
  inclusion_proof: InclusionProof;
}

export interface RunAttestations {
  verification_run_id: string;
  /** Oldest first: the run's finish, then any revocation or redaction. */
  attestations: ServedAttestation[];
  /** The checkpoint every inclusion proof leads to (null before the first attestation). */
  checkpoint: ServedCheckpoint | null;
  /** Whether an attestation of this run is still queued: it is in a checkpoint within seconds. */
  pending: boolean;
}

/**
 * A run's attestations, to those who may read the run (its submitter, the Problem's managers,
 * administrators; not_found for anyone else). Envelopes name the Submission's artifacts by hash,
 * and a short answer's hash is a guessable answer, so they are not public; the log itself (leaf
 * hashes, checkpoints, proofs) is. Commitments are opened for readers sealed work no longer
 * withholds anything from.
 */
export async function readRunAttestations(
  sql: Sql,
  viewer: Viewer,
  runId: string,
  now: Date,
): Promise<RunAttestations> {
  const [run] = RUN_ID.test(runId)
    ? await sql<{ id: string; problem_revision_id: string }[]>`
        select r.id, r.problem_revision_id from verification_runs r
        where r.id = ${runId} and ${readableRunSql(sql, viewer)}`
    : [];
  if (!run) {
    throw new ServiceError("not_found", `no verification run you can read has the id "${runId}"`, {
      verification_run_id: runId,
    });
  }
  const rows = await sql<
    {
      log_index: string;
      reason: ServedAttestation["reason"];
      issued_at: Date;
      key_id: string;
      payload_sha256: string;
      supersedes_log_index: string | null;
      envelope: string;
      openings: Record<string, Opening> | null;
    }[]
  >`
    select log_index, reason, issued_at, key_id, payload_sha256, supersedes_log_index, envelope, openings
    from attestations where verification_run_id = ${run.id} order by log_index`;
  const [queued] = await sql`select 1 from attestation_queue where verification_run_id = ${run.id} limit 1`;
  const checkpoint = rows.length > 0 ? await readCheckpoint(sql) : null;
  const released =
    rows.some((row) => row.openings !== null) &&
    (await readRunWithholding(sql, { viewer, now }, run.problem_revision_id)) === NOTHING_WITHHELD;
  const attestations: ServedAttestation[] = [];
  for (const row of rows) {
    attestations.push({
      log_index: Number(row.log_index),
      reason: row.reason,
      issued_at: row.issued_at.toISOString(),
      key_id: row.key_id,
      payload_sha256: row.payload_sha256,
      supersedes_log_index: row.supersedes_log_index === null ? null : Number(row.supersedes_log_index),
      envelope: JSON.parse(row.envelope) as DsseEnvelope,
      openings: released ? row.openings : null,
      inclusion_proof: await inclusionProof(sql, Number(row.log_index), checkpoint!.tree_size),
    });
  }
  return { verification_run_id: run.id, attestations, checkpoint, pending: queued !== undefined };
}

/** The log index of a run's newest attestation, or null while it is queued (get_verification). */
export async function latestLogIndex(sql: Sql, runId: string): Promise<number | null> {
  const [row] = await sql<{ log_index: string }[]>`
    select log_index from attestations where verification_run_id = ${runId} order by log_index desc limit 1`;
  return row ? Number(row.log_index) : null;
}

/** The newest attestation's log index of each run that has one (leaderboard rows). */
export async function latestLogIndexes(sql: Sql, runIds: readonly string[]): Promise<Map<string, number>> {
  if (runIds.length === 0) return new Map();
  const rows = await sql<{ verification_run_id: string; log_index: string }[]>`
    select distinct on (verification_run_id) verification_run_id, log_index from attestations
    where verification_run_id = any(${[...runIds]}) order by verification_run_id, log_index desc`;
  return new Map(rows.map((row) => [row.verification_run_id, Number(row.log_index)]));
}
