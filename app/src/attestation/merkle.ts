import { createHash } from "node:crypto";

/**
 * The Merkle tree of the transparency log, as RFC 9162 section 2.1 defines it (the same hashing
 * as RFC 6962 and Sigstore's Rekor): leaves hashed with a 0x00 prefix, interior nodes with 0x01.
 *
 * Written here because no maintained JavaScript library exports both proofs: @sigstore/verify
 * checks Rekor inclusion proofs internally but exports neither function, and the general Merkle
 * libraries (merkletreejs and the like) do not follow RFC 9162's unbalanced-tree split.
 *
 * The log stores the hash of every perfect subtree it completes (`level`, `index`: the 2^level
 * leaves from index * 2^level). Every subtree a proof or a root names is a run of those
 * (`perfectNodes`), so a proof is one read of O(log^2 n) stored hashes, never a walk of leaves.
 */

/** A stored perfect subtree: 2^level leaves starting at index * 2^level. */
export interface NodeId {
  level: number;
  index: number;
}

/** Leaves [start, end) of the log. */
export type LeafRange = readonly [start: number, end: number];

export function leafHash(data: Uint8Array): Buffer {
  return createHash("sha256").update(Buffer.of(0)).update(data).digest();
}

export function nodeHash(left: Uint8Array, right: Uint8Array): Buffer {
  return createHash("sha256").update(Buffer.of(1)).update(left).update(right).digest();
}

/** The hash of an empty tree: sha256 of nothing (RFC 9162 2.1.1). */
export function emptyRoot(): Buffer {
  return createHash("sha256").digest();
}

/** The largest power of two smaller than n (n >= 2), the split point k of RFC 9162. */
export function splitPoint(n: number): number {
  let k = 1;
  while (k * 2 < n) k *= 2;
  return k;
}

/**
 * The perfect subtrees that make up leaves [start, end), largest first, when start is aligned as
 * every range of a root or a proof is. MTH of the range folds them from the right.
 */
export function perfectNodes([start, end]: LeafRange): NodeId[] {
  const nodes: NodeId[] = [];
  let at = start;
  while (at < end) {
    let level = 0;
    while (at % 2 ** (level + 1) === 0 && at + 2 ** (level + 1) <= end) level++;
    nodes.push({ level, index: at / 2 ** level });
    at += 2 ** level;
  }
  return nodes;
}

/** MTH of a range from the hashes of its perfect subtrees (largest first). */
export function foldRange(hashes: readonly Uint8Array[]): Buffer {
  if (hashes.length === 0) return emptyRoot();
  let hash: Buffer = Buffer.from(hashes.at(-1)!);
  for (let i = hashes.length - 2; i >= 0; i--) hash = nodeHash(hashes[i]!, hash);
  return hash;
}

/** The ranges whose hashes form the inclusion proof of leaf m in a tree of n (RFC 9162 2.1.3.1), leaf level first. */
export function inclusionRanges(m: number, n: number): LeafRange[] {
  const path = (start: number, end: number): LeafRange[] => {
    if (end - start <= 1) return [];
    const k = splitPoint(end - start);
    return m - start < k
      ? [...path(start, start + k), [start + k, end]]
      : [...path(start + k, end), [start, start + k]];
  };
  return path(0, n);
}

/** The ranges whose hashes form the consistency proof from size m to size n (RFC 9162 2.1.4.1). */
export function consistencyRanges(m: number, n: number): LeafRange[] {
  const subproof = (size: number, start: number, end: number, complete: boolean): LeafRange[] => {
    if (size === end - start) return complete ? [] : [[start, end]];
    const k = splitPoint(end - start);
    return size <= k
      ? [...subproof(size, start, start + k, complete), [start + k, end]]
      : [...subproof(size - k, start + k, end, false), [start, start + k]];
  };
  if (m <= 0 || m >= n) return [];
  return subproof(m, 0, n, true);
}

/** Why a proof does not hold, or null when it does. */
export type ProofFailure = string | null;

/** Verifies an inclusion proof (RFC 9162 2.1.3.2). */
export function verifyInclusion(
  leaf: Uint8Array,
  index: number,
  treeSize: number,
  proof: readonly Uint8Array[],
  root: Uint8Array,
): ProofFailure {
  if (!Number.isSafeInteger(index) || !Number.isSafeInteger(treeSize) || index < 0 || index >= treeSize) {
    return `leaf index ${index} is outside a tree of ${treeSize}`;
  }
  let fn = index;
  let sn = treeSize - 1;
  let r: Buffer = Buffer.from(leaf);
  for (const p of proof) {
    if (sn === 0) return "the inclusion proof has more hashes than the tree has levels";
    if (fn % 2 === 1 || fn === sn) {
      r = nodeHash(p, r);
      if (fn % 2 === 0) {
        while (fn % 2 === 0 && fn !== 0) {
          fn = Math.floor(fn / 2);
          sn = Math.floor(sn / 2);
        }
      }
    } else {
      r = nodeHash(r, p);
    }
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  if (sn !== 0) return "the inclusion proof has fewer hashes than the tree has levels";
  return r.equals(Buffer.from(root))
    ? null
    : "the inclusion proof does not lead to the checkpoint's root hash";
}

/** Verifies a consistency proof between two tree heads (RFC 9162 2.1.4.2). */
export function verifyConsistency(
  size1: number,
  size2: number,
  root1: Uint8Array,
  root2: Uint8Array,
  proof: readonly Uint8Array[],
): ProofFailure {
  if (size1 > size2) return `the earlier tree (${size1}) is larger than the later one (${size2})`;
  if (size1 === size2) {
    if (proof.length !== 0) return "a proof between equal sizes must be empty";
    return Buffer.from(root1).equals(Buffer.from(root2)) ? null : "two roots of the same size differ";
  }
  if (size1 === 0) return proof.length === 0 ? null : "a proof from the empty tree must be empty";
  let path: Uint8Array[] = [...proof];
  if (path.length === 0) return "the consistency proof is empty";
  // When size1 is an exact power of two (its tree a complete left subtree), root1 leads the path.
  if (isPowerOfTwo(size1)) path = [Buffer.from(root1), ...path];
  let fn = size1 - 1;
  let sn = size2 - 1;
  while (fn % 2 === 1) {
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  let fr: Buffer = Buffer.from(path[0]!);
  let sr: Buffer = Buffer.from(path[0]!);
  for (const c of path.slice(1)) {
    if (sn === 0) return "the consistency proof has more hashes than the trees need";
    if (fn % 2 === 1 || fn === sn) {
      fr = nodeHash(c, fr);
      sr = nodeHash(c, sr);
      if (fn % 2 === 0) {
        while (fn % 2 === 0 && fn !== 0) {
          fn = Math.floor(fn / 2);
          sn = Math.floor(sn / 2);
        }
      }
    } else {
      sr = nodeHash(sr, c);
    }
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  if (sn !== 0) return "the consistency proof has fewer hashes than the trees need";
  if (!fr.equals(Buffer.from(root1)))
    return `the log's history does not contain the tree of ${size1} seen before`;
  if (!sr.equals(Buffer.from(root2)))
    return `the consistency proof does not lead to the root of the tree of ${size2}`;
  return null;
}

function isPowerOfTwo(n: number): boolean {
  return n > 0 && 2 ** Math.round(Math.log2(n)) === n;
}

/**
 * A whole tree in memory (tests, benches, the CLI's checks of small logs): every perfect
 * subtree's hash by level, and the roots and proofs computed from them.
 */
export class MemoryMerkleTree {
  /** levels[l][i]: the hash of perfect subtree (l, i). */
  private readonly levels: Buffer[][] = [[]];

  get size(): number {
    return this.levels[0]!.length;
  }

  /** Appends a leaf hash and returns the perfect subtrees it completed (level 0 first). */
  append(leaf: Buffer): Array<NodeId & { hash: Buffer }> {
    const completed: Array<NodeId & { hash: Buffer }> = [];
    let level = 0;
    let index = this.levels[0]!.length;
    let hash = leaf;
    for (;;) {
      if (!this.levels[level]) this.levels[level] = [];
      this.levels[level]!.push(hash);
      completed.push({ level, index, hash });
      if (index % 2 === 0) break;
      hash = nodeHash(this.levels[level]![index - 1]!, hash);
      level++;
      index = (index - 1) / 2;
    }
    return completed;
  }

  node({ level, index }: NodeId): Buffer {
    const hash = this.levels[level]?.[index];
    if (!hash) throw new RangeError(`no perfect subtree (${level}, ${index})`);
    return hash;
  }

  rangeHash(range: LeafRange): Buffer {
    return foldRange(perfectNodes(range).map((id) => this.node(id)));
  }

  root(size = this.size): Buffer {
    return this.rangeHash([0, size]);
  }

  inclusionProof(index: number, size = this.size): Buffer[] {
    return inclusionRanges(index, size).map((range) => this.rangeHash(range));
  }

  consistencyProof(from: number, to = this.size): Buffer[] {
    return consistencyRanges(from, to).map((range) => this.rangeHash(range));
  }
}
