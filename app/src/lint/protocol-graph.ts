import { pointer, type ReviewProtocolDocument } from "@svc/schemas";

/** Why one node depends on another: the three sources of dependency edges (spec 2.1). */
export const ReferenceKind = { input: "input", prior: "prior", when: "when" } as const;
export type ReferenceKind = (typeof ReferenceKind)[keyof typeof ReferenceKind];

/** One node id written inside a node: a reduce input, a review prior node or a `when.node`. */
export interface NodeReference {
  /** Index of the node that holds the reference. */
  from: number;
  kind: ReferenceKind;
  /** The id as written. */
  target: string;
  /** JSON Pointer to the written id. */
  path: string;
  /** Index of the node the id names (its first occurrence), undefined when no node has that id. */
  resolved: number | undefined;
  /** The id is the referring node's own id. */
  self: boolean;
}

/**
 * The dependency graph of a protocol as written, tolerant of every rule violation so the rules
 * can be checked on it: duplicate ids resolve to their first node, and only the fields the
 * node's `type` gives meaning to make edges (a reduce node's `inputs`, a review node's
 * `visibility.prior_nodes`, anyone's `when`); misplaced fields are rule 2's business.
 */
export interface ProtocolGraph {
  /** Node id to the index of the first node carrying it. */
  indexById: ReadonlyMap<string, number>;
  /** Indices of nodes repeating an earlier node's id (rule 1). */
  duplicates: ReadonlySet<number>;
  /** Every reference, in node order, then inputs, prior nodes, when. */
  references: readonly NodeReference[];
  /** For each node index, the indices it depends on through resolved, non-self references. */
  dependsOn: ReadonlyArray<readonly number[]>;
}

/** Builds the {@link ProtocolGraph} of a schema-valid document. */
export function buildProtocolGraph(document: ReviewProtocolDocument): ProtocolGraph {
  const indexById = new Map<string, number>();
  const duplicates = new Set<number>();
  document.nodes.forEach((node, i) => {
    if (indexById.has(node.id)) duplicates.add(i);
    else indexById.set(node.id, i);
  });

  const references: NodeReference[] = [];
  document.nodes.forEach((node, from) => {
    const add = (kind: ReferenceKind, target: string, path: string) =>
      references.push({
        from,
        kind,
        target,
        path,
        resolved: indexById.get(target),
        self: target === node.id,
      });
    if (node.type === "reduce") {
      for (const [j, id] of (node.inputs ?? []).entries())
        add("input", id, pointer("nodes", from, "inputs", j));
    } else {
      for (const [j, id] of (node.visibility?.prior_nodes ?? []).entries()) {
        add("prior", id, pointer("nodes", from, "visibility", "prior_nodes", j));
      }
    }
    if (node.when !== null) add("when", node.when.node, pointer("nodes", from, "when", "node"));
  });

  const dependsOn = document.nodes.map((_, i) => edgesFrom(references, i, () => true));
  return { indexById, duplicates, references, dependsOn };
}

/** The distinct resolved, non-self targets of node `from`'s references accepted by `keep`. */
export function edgesFrom(
  references: readonly NodeReference[],
  from: number,
  keep: (reference: NodeReference) => boolean,
): number[] {
  const targets: number[] = [];
  for (const r of references) {
    if (r.from !== from || r.self || r.resolved === undefined || !keep(r)) continue;
    if (!targets.includes(r.resolved)) targets.push(r.resolved);
  }
  return targets;
}

/** Every node index reachable from `start` by following `dependsOn` (start excluded unless on a cycle). */
export function ancestorsOf(dependsOn: ReadonlyArray<readonly number[]>, start: number): Set<number> {
  const seen = new Set<number>();
  const stack = [...(dependsOn[start] ?? [])];
  while (stack.length > 0) {
    const next = stack.pop()!;
    if (seen.has(next)) continue;
    seen.add(next);
    stack.push(...(dependsOn[next] ?? []));
  }
  return seen;
}
