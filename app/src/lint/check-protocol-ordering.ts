import { pointer, type ReviewProtocolDocument } from "@svc/schemas";
import { cyclicComponents, shortestPath } from "./cyclic-components.ts";
import type { ProtocolFindings } from "./protocol-findings.ts";
import { ancestorsOf, edgesFrom, type ProtocolGraph } from "./protocol-graph.ts";

/**
 * Rules 5, 6 and 10: the order nodes run in.
 *
 * A `visibility.prior_nodes` item is itself a dependency edge, so a prior node that cannot
 * complete first (because it depends on the node that wants to see it, for instance through a
 * `when` on that node's outcome) always closes a cycle. Rule 10 names that case precisely and
 * rule 5 therefore looks for cycles through `inputs` and `when` only, so one mistake is reported
 * once.
 */
export function checkProtocolOrdering(
  document: ReviewProtocolDocument,
  graph: ProtocolGraph,
  findings: ProtocolFindings,
): void {
  const ids = document.nodes.map((n) => n.id);
  const chain = (path: number[]) => path.map((i) => ids[i]).join(" -> ");

  // Rule 10.
  for (const r of graph.references) {
    if (r.kind !== "prior" || r.self || r.resolved === undefined) continue;
    const back = shortestPath(graph.dependsOn, r.resolved, r.from, new Set(ids.keys()));
    if (back === undefined) continue;
    findings.violation(
      10,
      r.path,
      `prior node "${r.target}" depends on "${ids[r.from]}" (${chain(back)}), so it cannot complete before "${ids[r.from]}" runs; remove it from prior_nodes or list only nodes that finish earlier`,
    );
  }

  // Rule 5.
  const structural = ids.map((_, i) => edgesFrom(graph.references, i, (r) => r.kind !== "prior"));
  for (const component of cyclicComponents(structural)) {
    const members = new Set(component);
    const first = component[0]!;
    const edge = graph.references.find(
      (r) =>
        r.from === first &&
        r.kind !== "prior" &&
        !r.self &&
        r.resolved !== undefined &&
        members.has(r.resolved),
    )!;
    const back = shortestPath(structural, edge.resolved!, first, members)!;
    findings.violation(
      5,
      edge.path,
      `nodes depend on each other in a cycle (${chain([first, ...back])}); a protocol must be acyclic, so remove one of these inputs or when conditions`,
    );
  }

  // Rule 6, meaningless while the output is not a reduce node or a reference breaks rule 3
  // (the mistyped id is often the very link that would make a node an ancestor).
  const output = graph.indexById.get(document.output);
  if (output === undefined || document.nodes[output]!.type !== "reduce") return;
  if (graph.references.some((r) => r.self || r.resolved === undefined)) return;
  const feeding = ancestorsOf(graph.dependsOn, output);
  feeding.add(output);
  document.nodes.forEach((node, i) => {
    if (i === output || graph.duplicates.has(i) || feeding.has(i)) return;
    if (node.when !== null) {
      const condition = graph.indexById.get(node.when.node);
      if (condition !== undefined && feeding.has(condition)) return;
    }
    findings.violation(
      6,
      pointer("nodes", i),
      `node "${node.id}" does not lead to output "${document.output}": it is not an ancestor of it and has no when on the output or one of its ancestors; feed it into a reduce node the output depends on, make it conditional on one, or remove it`,
    );
  });
}
