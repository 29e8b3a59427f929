import {
  canonicalJson,
  type DsseEnvelope,
  foldRange,
  IN_TOTO_PAYLOAD_TYPE,
  leafHash,
  type NodeId,
  nodeHash,
  perfectNodes,
  sha256,
  signCheckpoint,
  signEnvelope,
} from "@svc/app";
import type { Sql } from "../core/db/connect-sql.ts";
import type { Services } from "../core/services/services.ts";
import { activeSigningKey } from "./attestation-keys.ts";
import {
  type AttestationRequest,
  buildRunStatements,
  type EarlierAttestation,
} from "./build-run-statement.ts";
import { logOrigin } from "./log-origin.ts";

/** Queued runs signed and appended per transaction. */
export const SEQUENCER_BATCH = 500;

/** The advisory lock only the sequencer takes (never a run's transaction): one integration at a time. */
const SEQUENCER_LOCK = 0x5_7c_10_9;

export interface SequencedBatch {
  /** Attestations appended by this call. */
  appended: number;
  /** The log's size after it. */
  treeSize: number;
}

/**
 * Signs up to `batch` queued runs and appends them to the transparency log, in one transaction
 * with the nodes they complete and the new signed checkpoint: a crash anywhere rolls all of it
 * back and the next call redoes it, so the log has no gap and no duplicate. The queue is filled by
 * triggers in the runs' own transactions (migration 031), so a run's commit takes no lock of the
 * log's; only sequencers take SEQUENCER_LOCK, and one that finds it taken leaves the batch to the
 * holder. Returns at once when there is nothing to do.
 */
export async function sequenceAttestations(
  services: Pick<Services, "sql" | "clock" | "baseUrl" | "attestationKeyPem">,
  batch = SEQUENCER_BATCH,
): Promise<SequencedBatch> {
  return services.sql.begin(async (tx) => {
    const [lock] = await tx<{ ok: boolean }[]>`select pg_try_advisory_xact_lock(${SEQUENCER_LOCK}) as ok`;
    if (!lock?.ok) return { appended: 0, treeSize: -1 };
    const queue = await tx<(AttestationRequest & { id: string })[]>`
      select id, verification_run_id, reason from attestation_queue order by id limit ${batch}`;
    const origin = await logOrigin(tx, services.baseUrl);
    const [log] = await tx<{ tree_size: string }[]>`select tree_size from transparency_log for update`;
    const start = Number(log!.tree_size);
    if (queue.length === 0) return { appended: 0, treeSize: start };
    const now = services.clock();
    const key = await activeSigningKey(tx, services.attestationKeyPem);
    const built = await buildRunStatements(tx, queue, new Map(), now);
    const earlier = await earlierAttestations(tx, queue);

    const rows: AttestationRow[] = [];
    const leaves: Buffer[] = [];
    // What this batch appended, per Submission: a rerun follows its Submission's newest attestation.
    const bySubmission = new Map<string, EarlierAttestation>();
    built.forEach(({ statement, openings }, i) => {
      const request = queue[i]!;
      const { run } = statement.predicate;
      statement.predicate.supersedes =
        earlier.own.get(request.verification_run_id) ??
        (run.trigger === "submission"
          ? null
          : (bySubmission.get(run.submission_id) ?? earlier.reruns.get(request.verification_run_id) ?? null));
      const payload = Buffer.from(canonicalJson(statement));
      const envelope: DsseEnvelope = signEnvelope(IN_TOTO_PAYLOAD_TYPE, payload, key);
      const text = canonicalJson(envelope);
      const payloadSha256 = sha256(payload);
      const logIndex = start + i;
      rows.push({
        log_index: logIndex,
        verification_run_id: request.verification_run_id,
        reason: request.reason,
        envelope: text,
        payload_sha256: payloadSha256,
        key_id: key.keyId,
        supersedes_log_index: statement.predicate.supersedes?.log_index ?? null,
        openings: openings as AttestationRow["openings"],
        issued_at: now,
      });
      leaves.push(leafHash(Buffer.from(text)));
      // A later request for the same run, or a rerun of the same Submission, in this batch follows this one.
      earlier.own.set(request.verification_run_id, { log_index: logIndex, payload_sha256: payloadSha256 });
      bySubmission.set(run.submission_id, { log_index: logIndex, payload_sha256: payloadSha256 });
    });

    const { nodes, root } = await appendLeaves(tx, start, leaves);
    const treeSize = start + leaves.length;
    const note = signCheckpoint({ origin, treeSize, rootHash: root }, origin, key.privateKey, key.publicKey);
    // Arrays, not one parameter per value: a batch is one statement of seven parameters.
    await tx`
      insert into attestations (log_index, verification_run_id, reason, envelope, payload_sha256, key_id,
        supersedes_log_index, openings, issued_at)
      select log_index, run_id, reason, envelope, payload_sha256, ${key.keyId}, supersedes, openings::jsonb, ${now}
      from unnest(${rows.map((row) => row.log_index)}::bigint[], ${rows.map((row) => row.verification_run_id)}::text[],
        ${rows.map((row) => row.reason)}::text[], ${rows.map((row) => row.envelope)}::text[],
        ${rows.map((row) => row.payload_sha256)}::text[], ${rows.map((row) => row.supersedes_log_index)}::bigint[],
        ${rows.map((row) => (row.openings === null ? null : JSON.stringify(row.openings)))}::text[])
        as row(log_index, run_id, reason, envelope, payload_sha256, supersedes, openings)`;
    await insertLogNodes(tx, nodes);
    await tx`
      insert into transparency_log_checkpoints (tree_size, root_hash, note, key_id, signed_at)
      values (${treeSize}, ${root}, ${note}, ${key.keyId}, ${now})`;
    await tx`update transparency_log set tree_size = ${treeSize}`;
    await tx`delete from attestation_queue where id = any(${queue.map((row) => row.id)})`;
    return { appended: leaves.length, treeSize };
  });
}

interface AttestationRow {
  log_index: number;
  verification_run_id: string;
  reason: string;
  envelope: string;
  payload_sha256: string;
  key_id: string;
  supersedes_log_index: number | null;
  openings: Record<string, { nonce: string; value: string | number | boolean | null }> | null;
  issued_at: Date;
}

/**
 * What each queued run's attestation follows: the run's own latest attestation (a revocation or
 * a redaction after its finish), else, for a rerun or a manual run, the latest attestation of an
 * earlier run of the same Submission.
 */
async function earlierAttestations(
  tx: Sql,
  queue: readonly AttestationRequest[],
): Promise<{ own: Map<string, EarlierAttestation>; reruns: Map<string, EarlierAttestation> }> {
  const ids = [...new Set(queue.map((row) => row.verification_run_id))];
  type Row = { verification_run_id: string; log_index: string; payload_sha256: string };
  const own = await tx<Row[]>`
    select distinct on (verification_run_id) verification_run_id, log_index, payload_sha256
    from attestations where verification_run_id = any(${ids})
    order by verification_run_id, log_index desc`;
  const found = new Map(own.map((row) => [row.verification_run_id, row]));
  const rest = ids.filter((id) => !found.has(id));
  const reruns =
    rest.length === 0
      ? []
      : await tx<Row[]>`
          select distinct on (r.id) r.id as verification_run_id, a.log_index, a.payload_sha256
          from verification_runs r
          join verification_runs other on other.submission_id = r.submission_id and other.created_at < r.created_at
          join attestations a on a.verification_run_id = other.id
          where r.id = any(${rest}) and r.trigger <> 'submission'
          order by r.id, a.log_index desc`;
  const toMap = (rows: Row[]) =>
    new Map(
      rows.map((row) => [
        row.verification_run_id,
        { log_index: Number(row.log_index), payload_sha256: row.payload_sha256 },
      ]),
    );
  return { own: toMap(own), reruns: toMap(reruns) };
}

/**
 * Appends leaves after `start`: reads the old tree's right edge (one perfect subtree per set bit
 * of its size), completes every subtree the new leaves close, and returns them with the new root.
 */
async function appendLeaves(
  tx: Sql,
  start: number,
  leaves: readonly Buffer[],
): Promise<{ nodes: Array<NodeId & { hash: Buffer }>; root: Buffer }> {
  const known = new Map<string, Buffer>();
  const keyOf = ({ level, index }: NodeId) => `${level}:${index}`;
  const edge = perfectNodes([0, start]);
  if (edge.length > 0) {
    const rows = await tx<{ level: number; idx: string; hash: Buffer }[]>`
      select level, idx, hash from transparency_log_nodes
      where (level, idx) in (select * from unnest(${edge.map((n) => n.level)}::smallint[], ${edge.map((n) => n.index)}::bigint[]))`;
    for (const row of rows) known.set(`${row.level}:${row.idx}`, row.hash);
    if (rows.length !== edge.length)
      throw new Error("the transparency log is missing nodes of its right edge");
  }
  const nodes: Array<NodeId & { hash: Buffer }> = [];
  leaves.forEach((leaf, i) => {
    let level = 0;
    let index = start + i;
    let hash = leaf;
    for (;;) {
      known.set(keyOf({ level, index }), hash);
      nodes.push({ level, index, hash });
      if (index % 2 === 0) break;
      hash = nodeHash(known.get(keyOf({ level, index: index - 1 }))!, hash);
      level++;
      index = (index - 1) / 2;
    }
  });
  const root = foldRange(perfectNodes([0, start + leaves.length]).map((id) => known.get(keyOf(id))!));
  return { nodes, root };
}

/** Stores completed perfect subtrees, as arrays in chunks (the sequencer; the bench seeds with it too). */
export async function insertLogNodes(
  sql: Sql,
  nodes: ReadonlyArray<NodeId & { hash: Buffer }>,
): Promise<void> {
  for (let i = 0; i < nodes.length; i += 5000) {
    const chunk = nodes.slice(i, i + 5000);
    await sql`
      insert into transparency_log_nodes (level, idx, hash)
      select level, idx, decode(hash, 'hex')
      from unnest(${chunk.map((n) => n.level)}::smallint[], ${chunk.map((n) => n.index)}::bigint[],
        ${chunk.map((n) => n.hash.toString("hex"))}::text[]) as node(level, idx, hash)`;
  }
}
