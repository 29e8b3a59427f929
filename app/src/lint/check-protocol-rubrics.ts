import { compileUserSchema, pointer, type ReviewProtocolDocument } from "@svc/schemas";
import type { ProtocolFindings } from "./protocol-findings.ts";

/** Every completed review carries these beside its `response`; the response must not redeclare them. */
const RESERVED = ["rationale", "citations", "confidence"];

/** Rule 11: each review node's `rubric.response_schema` compiles and leaves the reserved names alone. */
export function checkProtocolRubrics(document: ReviewProtocolDocument, findings: ProtocolFindings): void {
  document.nodes.forEach((node, i) => {
    if (node.type !== "review" || node.rubric === null) return;
    const schema = node.rubric.response_schema;
    const at = pointer("nodes", i, "rubric", "response_schema");
    const compiled = compileUserSchema(schema);
    if (!compiled.ok) {
      findings.violation(
        11,
        at,
        `response_schema is not a valid JSON Schema (draft 2020-12): ${compiled.message}; fix the schema`,
      );
    }
    const properties = schema.properties;
    if (typeof properties !== "object" || properties === null || Array.isArray(properties)) return;
    for (const name of RESERVED) {
      if (Object.hasOwn(properties, name)) {
        findings.violation(
          11,
          `${at}${pointer("properties", name)}`,
          `response_schema declares "${name}", which every review already returns beside its response; remove it and use the rubric's ${name} setting`,
        );
      }
    }
  });
}
