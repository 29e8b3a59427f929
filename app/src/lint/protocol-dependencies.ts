import type { ReviewProtocolDocument } from "@svc/schemas";
import { buildProtocolGraph } from "./protocol-graph.ts";

/**
 * Node id -> the ids it depends on (its reduce `inputs`, its review `visibility.prior_nodes`
 * and its `when.node`, each once, in that order). The review engine opens a node once all of
 * them completed. On a document that breaks rules 1 or 3, a repeated id keeps its first node
 * and unknown or self references are left out.
 */
export function protocolDependencies(document: ReviewProtocolDocument): Map<string, string[]> {
  const graph = buildProtocolGraph(document);
  const dependencies = new Map<string, string[]>();
  document.nodes.forEach((node, i) => {
    if (graph.duplicates.has(i)) return;
    dependencies.set(
      node.id,
      (graph.dependsOn[i] ?? []).map((j) => document.nodes[j]!.id),
    );
  });
  return dependencies;
}
