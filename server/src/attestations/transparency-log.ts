import {
  consistencyRanges,
  foldRange,
  inclusionRanges,
  type LeafRange,
  type NodeId,
  perfectNodes,
} from "@svc/app";
import type { Sql } from "../core/db/connect-sql.ts";
import { ServiceError } from "../core/errors/service-error.ts";

/** A signed checkpoint as served: the note, and its fields for readers that do not parse notes. */
export interface ServedCheckpoint {
  origin: string;
  tree_size: number;
  /** base64, as in the note. */
  root_hash: string;
  /** The C2SP signed note, byte for byte as signed. */
  note: string;
  signed_at: string;
}

export interface InclusionProof {
  log_index: number;
  tree_size: number;
  /** base64 hashes, leaf level first (RFC 9162 2.1.3). */
  hashes: string[];
}

export interface ConsistencyProof {
  from_size: number;
  to_size: number;
  hashes: string[];
}

/** The newest checkpoint, or the one of `treeSize` when given; not_found before the first entry. */
export async function readCheckpoint(sql: Sql, treeSize?: number): Promise<ServedCheckpoint> {
  const [row] = await sql<
    { tree_size: string; root_hash: Buffer; note: string; signed_at: Date; origin: string }[]
  >`
    select c.tree_size, c.root_hash, c.note, c.signed_at, l.origin
    from transparency_log_checkpoints c cross join transparency_log l
    ${treeSize === undefined ? sql`order by c.tree_size desc limit 1` : sql`where c.tree_size = ${treeSize}`}`;
  if (!row) {
    throw new ServiceError(
      "not_found",
      treeSize === undefined
        ? "the transparency log has no checkpoint yet: no run has been attested"
        : `no checkpoint was published at tree_size ${treeSize}; read the newest and ask for proofs to it`,
      { field: "tree_size" },
    );
  }
  return {
    origin: row.origin,
    tree_size: Number(row.tree_size),
    root_hash: row.root_hash.toString("base64"),
    note: row.note,
    signed_at: row.signed_at.toISOString(),
  };
}

/** The size of the newest checkpoint (0 before the first). */
async function publishedSize(sql: Sql): Promise<number> {
  const [row] = await sql<
    { size: string | null }[]
  >`select max(tree_size) as size from transparency_log_checkpoints`;
  return Number(row?.size ?? 0);
}

/** The inclusion proof of entry `logIndex` in the tree of `treeSize` (default: the newest checkpoint). */
export async function inclusionProof(sql: Sql, logIndex: number, treeSize?: number): Promise<InclusionProof> {
  const size = treeSize ?? (await publishedSize(sql));
  await requirePublished(sql, size, "tree_size");
  if (logIndex < 0 || logIndex >= size) {
    throw new ServiceError(
      "invalid_input",
      `log_index ${logIndex} is not in the tree of ${size} entries; pick an index below tree_size`,
      { field: "log_index" },
    );
  }
  return {
    log_index: logIndex,
    tree_size: size,
    hashes: await rangeHashes(sql, inclusionRanges(logIndex, size)),
  };
}

/** The consistency proof from the tree of `fromSize` to the tree of `toSize` (default: the newest). */
export async function consistencyProof(
  sql: Sql,
  fromSize: number,
  toSize?: number,
): Promise<ConsistencyProof> {
  const size = toSize ?? (await publishedSize(sql));
  await requirePublished(sql, size, "to_size");
  if (fromSize < 1 || fromSize > size) {
    throw new ServiceError(
      "invalid_input",
      `from_size must be from 1 to ${size}, the size of the later checkpoint; it was ${fromSize}`,
      { field: "from_size" },
    );
  }
  return {
    from_size: fromSize,
    to_size: size,
    hashes: await rangeHashes(sql, consistencyRanges(fromSize, size)),
  };
}

/** Proofs are only to checkpoints the log published (a size between two batches was never signed). */
async function requirePublished(sql: Sql, size: number, field: string): Promise<void> {
  const [row] = await sql`select 1 from transparency_log_checkpoints where tree_size = ${size}`;
  if (!row) {
    throw new ServiceError(
      "invalid_input",
      `${field} ${size} is not the size of a published checkpoint; use a tree_size from a checkpoint`,
      { field },
    );
  }
}

/** The hashes of leaf ranges, from the stored perfect subtrees they are made of, in one read. */
async function rangeHashes(sql: Sql, ranges: readonly LeafRange[]): Promise<string[]> {
  const perRange = ranges.map((range) => perfectNodes(range));
  const ids = uniqueNodes(perRange.flat());
  if (ids.length === 0) return [];
  const rows = await sql<{ level: number; idx: string; hash: Buffer }[]>`
    select level, idx, hash from transparency_log_nodes
    where (level, idx) in (select * from unnest(${ids.map((id) => id.level)}::smallint[], ${ids.map((id) => id.index)}::bigint[]))`;
  const byKey = new Map(rows.map((row) => [`${row.level}:${row.idx}`, row.hash]));
  return perRange.map((nodes) =>
    foldRange(
      nodes.map((id) => {
        const hash = byKey.get(`${id.level}:${id.index}`);
        if (!hash) throw new Error(`the transparency log has no node (${id.level}, ${id.index})`);
        return hash;
      }),
    ).toString("base64"),
  );
}

function uniqueNodes(ids: readonly NodeId[]): NodeId[] {
  const seen = new Map<string, NodeId>();
  for (const id of ids) seen.set(`${id.level}:${id.index}`, id);
  return [...seen.values()];
}

/** A leaf's hash (base64): what anyone may read of any entry, without its content. */
export async function leafHashAt(sql: Sql, logIndex: number): Promise<string> {
  const [row] = await sql<{ hash: Buffer }[]>`
    select hash from transparency_log_nodes where level = 0 and idx = ${logIndex}`;
  if (!row) {
    throw new ServiceError("not_found", `the transparency log has no entry ${logIndex} yet`, {
      field: "log_index",
    });
  }
  return row.hash.toString("base64");
}
