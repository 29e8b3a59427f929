import { type ProtocolNode, pointer, type ReviewProtocolDocument } from "@svc/schemas";
import type { ProtocolFindings } from "./protocol-findings.ts";

type NodeField = keyof ProtocolNode;

/** Rule 2's table (spec 2.1, type-dependent requirements). */
const FIELDS: Record<ProtocolNode["type"], { required: NodeField[]; forbidden: NodeField[] }> = {
  review: { required: ["reviewers", "visibility", "rubric"], forbidden: ["inputs", "op", "config"] },
  reduce: {
    required: ["inputs", "op", "config"],
    forbidden: ["reviewers", "visibility", "conflicts", "rubric", "skills"],
  },
};

/** Rule 2: the fields a node's `type` requires are set, and the ones it excludes are null. */
export function checkProtocolNodeFields(document: ReviewProtocolDocument, findings: ProtocolFindings): void {
  document.nodes.forEach((node, i) => {
    const { required, forbidden } = FIELDS[node.type];
    for (const field of required) {
      if (node[field] === null) {
        findings.violation(2, pointer("nodes", i, field), `a ${node.type} node needs ${field}; set it`);
      }
    }
    for (const field of forbidden) {
      if (node[field] !== null) {
        findings.violation(
          2,
          pointer("nodes", i, field),
          `a ${node.type} node takes no ${field}; set it to null or remove it`,
        );
      }
    }
  });
}
