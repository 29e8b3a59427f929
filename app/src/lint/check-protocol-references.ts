import { pointer, type ReviewProtocolDocument } from "@svc/schemas";
import type { ProtocolFindings } from "./protocol-findings.ts";
import type { NodeReference, ProtocolGraph } from "./protocol-graph.ts";

const WHAT: Record<NodeReference["kind"], string> = {
  input: "input",
  prior: "visibility.prior_nodes item",
  when: "when.node",
};

/**
 * Rules 1, 3, 4 and 7: ids are unique, every reference names another existing node, `output`
 * names a reduce node and so does every `when.node`. Rules 4 and 7 are only checked on
 * references that resolved, so a dangling id is reported once (rule 3).
 */
export function checkProtocolReferences(
  document: ReviewProtocolDocument,
  graph: ProtocolGraph,
  findings: ProtocolFindings,
): void {
  const { nodes } = document;
  for (const i of graph.duplicates) {
    const first = graph.indexById.get(nodes[i]!.id)!;
    findings.violation(
      1,
      pointer("nodes", i, "id"),
      `node id "${nodes[i]!.id}" is already the id of /nodes/${first}; give every node a unique id`,
    );
  }

  const output = graph.indexById.get(document.output);
  if (output === undefined) {
    findings.violation(
      3,
      "/output",
      `output "${document.output}" names no node; set it to the id of the reduce node that decides the protocol`,
    );
  } else if (nodes[output]!.type !== "reduce") {
    findings.violation(
      4,
      "/output",
      `output "${document.output}" is a review node; output must name a reduce node, so add a reduce node over "${document.output}" (k_of_n or threshold) and name that`,
    );
  }

  for (const r of graph.references) {
    const holder = nodes[r.from]!.id;
    if (r.self) {
      findings.violation(
        3,
        r.path,
        `node "${holder}" names itself as its ${WHAT[r.kind]}; a node can only depend on other nodes`,
      );
    } else if (r.resolved === undefined) {
      findings.violation(
        3,
        r.path,
        `${WHAT[r.kind]} "${r.target}" names no node; use the id of an existing node`,
      );
    } else if (r.kind === "when" && nodes[r.resolved]!.type !== "reduce") {
      findings.violation(
        7,
        r.path,
        `when.node "${r.target}" is a review node; only a reduce node emits an outcome, so add a reduce node over "${r.target}" and condition on it`,
      );
    }
  }
}
