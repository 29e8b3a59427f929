import { createHash } from "node:crypto";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  consistencyRanges,
  inclusionRanges,
  leafHash,
  MemoryMerkleTree,
  nodeHash,
  perfectNodes,
  verifyConsistency,
  verifyInclusion,
} from "../../src/attestation/merkle.ts";

/** RFC 9162 2.1.1-2.1.4 written as the RFC writes them: recursion over the leaves themselves. */
function mth(leaves: Buffer[]): Buffer {
  if (leaves.length === 0) return createHash("sha256").digest();
  if (leaves.length === 1) return leafHash(leaves[0]!);
  const k = 2 ** Math.floor(Math.log2(leaves.length - 1));
  return nodeHash(mth(leaves.slice(0, k)), mth(leaves.slice(k)));
}
function path(m: number, leaves: Buffer[]): Buffer[] {
  if (leaves.length <= 1) return [];
  const k = 2 ** Math.floor(Math.log2(leaves.length - 1));
  return m < k
    ? [...path(m, leaves.slice(0, k)), mth(leaves.slice(k))]
    : [...path(m - k, leaves.slice(k)), mth(leaves.slice(0, k))];
}
function subproof(m: number, leaves: Buffer[], b: boolean): Buffer[] {
  const n = leaves.length;
  if (m === n) return b ? [] : [mth(leaves)];
  const k = 2 ** Math.floor(Math.log2(n - 1));
  return m <= k
    ? [...subproof(m, leaves.slice(0, k), b), mth(leaves.slice(k))]
    : [...subproof(m - k, leaves.slice(k), false), mth(leaves.slice(0, k))];
}

const leavesOf = (n: number) => Array.from({ length: n }, (_, i) => Buffer.from(`leaf ${i}`));

function treeOf(leaves: Buffer[]): MemoryMerkleTree {
  const tree = new MemoryMerkleTree();
  for (const leaf of leaves) tree.append(leafHash(leaf));
  return tree;
}

describe("the transparency log's Merkle tree (RFC 9162)", () => {
  it("matches the RFC's recursive definitions of the root, PATH and PROOF for every size up to 40", () => {
    for (let n = 1; n <= 40; n++) {
      const leaves = leavesOf(n);
      const tree = treeOf(leaves);
      expect(tree.root().equals(mth(leaves))).toBe(true);
      for (let m = 0; m < n; m++) {
        expect(tree.inclusionProof(m)).toEqual(path(m, leaves));
        expect(verifyInclusion(leafHash(leaves[m]!), m, n, tree.inclusionProof(m), tree.root())).toBeNull();
        if (m > 0) {
          expect(tree.consistencyProof(m)).toEqual(subproof(m, leaves, true));
          expect(verifyConsistency(m, n, tree.root(m), tree.root(), tree.consistencyProof(m))).toBeNull();
        }
      }
    }
  });

  it("names only aligned perfect subtrees for every range a proof or root needs", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 5000 }), fc.nat(), (n, seed) => {
        const m = seed % n;
        for (const [start, end] of [
          ...inclusionRanges(m, n),
          ...consistencyRanges(Math.max(1, m), n),
          [0, n] as const,
        ]) {
          let at = start;
          for (const node of perfectNodes([start, end])) {
            expect(node.index * 2 ** node.level).toBe(at);
            at += 2 ** node.level;
          }
          expect(at).toBe(end);
        }
      }),
    );
  });

  it("refuses any proof with one byte changed, a wrong index, a wrong size or a hash missing", () => {
    fc.assert(
      fc.property(fc.integer({ min: 2, max: 300 }), fc.nat(), fc.nat(), fc.nat(), (n, a, b, flip) => {
        const leaves = leavesOf(n);
        const tree = treeOf(leaves);
        const m = a % n;
        const proof = tree.inclusionProof(m);
        const leaf = leafHash(leaves[m]!);
        if (proof.length > 0) {
          const tampered = proof.map((hash) => Buffer.from(hash));
          tampered[b % tampered.length]![flip % 32]! ^= 1 << (flip % 8);
          expect(verifyInclusion(leaf, m, n, tampered, tree.root())).not.toBeNull();
          expect(verifyInclusion(leaf, m, n, proof.slice(1), tree.root())).not.toBeNull();
        }
        expect(verifyInclusion(leaf, (m + 1) % n, n, proof, tree.root())).not.toBeNull();
        const older = 1 + (b % (n - 1));
        const consistency = tree.consistencyProof(older);
        const forged = Buffer.from(tree.root(older));
        forged[flip % 32]! ^= 1;
        expect(verifyConsistency(older, n, forged, tree.root(), consistency)).not.toBeNull();
        expect(verifyConsistency(older, n, tree.root(older), tree.root(), consistency)).toBeNull();
      }),
    );
  });

  it("detects a log rewritten behind a client's back: a new root that does not extend the old one", () => {
    const honest = treeOf(leavesOf(40));
    const rewritten = treeOf([...leavesOf(20), Buffer.from("quietly changed"), ...leavesOf(40).slice(21)]);
    const failure = verifyConsistency(
      25,
      40,
      honest.root(25),
      rewritten.root(),
      rewritten.consistencyProof(25),
    );
    expect(failure).toMatch(/does not contain the tree of 25/);
  });
});
