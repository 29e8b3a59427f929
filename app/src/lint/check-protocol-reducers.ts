import {
  type KOfNConfig,
  type PredicateClause,
  type ProtocolNode,
  pointer,
  type ReviewProtocolDocument,
  type ThresholdConfig,
} from "@svc/schemas";
import type { ProtocolFindings } from "./protocol-findings.ts";
import type { ProtocolGraph } from "./protocol-graph.ts";

/**
 * Rules 12 to 15 on every reduce node whose op is set. The schema already shaped `config` by
 * `op`, so the casts below are safe. Checks that need the input review node (the declared
 * field, the reviewer count) are skipped when rules 3, 13 or 14 already say the input is wrong.
 */
export function checkProtocolReducers(
  document: ReviewProtocolDocument,
  graph: ProtocolGraph,
  findings: ProtocolFindings,
): void {
  document.nodes.forEach((node, i) => {
    if (node.type !== "reduce" || node.op === null) return;
    const at = (...rest: Array<string | number>) => pointer("nodes", i, ...rest);
    const inputs = node.inputs ?? [];
    const inputNode = (id: string) => {
      const index = id === node.id ? undefined : graph.indexById.get(id);
      return index === undefined ? undefined : document.nodes[index]!;
    };

    switch (node.op) {
      case "k_of_n":
      case "threshold": {
        const rule = node.op === "k_of_n" ? 13 : 14;
        let review: ProtocolNode | undefined;
        if (node.inputs !== null && inputs.length !== 1) {
          findings.violation(
            rule,
            at("inputs"),
            `${node.op} reads exactly one review node; it lists ${inputs.length}`,
          );
        } else if (inputs.length === 1) {
          review = inputNode(inputs[0]!);
          if (review?.type === "reduce") {
            findings.violation(
              rule,
              at("inputs", 0),
              `${node.op} reads one review node, and "${review.id}" is a reduce node; use coalesce to combine reduce nodes`,
            );
            review = undefined;
          }
        }
        if (node.config === null) return;
        if (node.op === "k_of_n") checkKOfN(node.config as KOfNConfig, review, at, findings);
        else checkThreshold(node.config as ThresholdConfig, review, at, findings);
        return;
      }
      case "coalesce": {
        inputs.forEach((id, j) => {
          const input = inputNode(id);
          if (input?.type === "review") {
            findings.violation(
              15,
              at("inputs", j),
              `coalesce combines reduce nodes, and "${id}" is a review node; put a k_of_n or threshold node over it and list that`,
            );
          }
        });
        if (node.inputs !== null && inputs.length === 0) {
          findings.violation(15, at("inputs"), "coalesce needs one or more reduce nodes, in priority order");
        }
        if (node.config !== null && Object.keys(node.config).length > 0) {
          findings.violation(15, at("config"), "coalesce takes no configuration; set config to {}");
        }
        return;
      }
      default: {
        const never: never = node.op;
        throw new Error(`Unhandled reduce op: ${String(never)}`);
      }
    }
  });
}

type At = (...rest: Array<string | number>) => string;
type Scalar = string | number | boolean | null;

function checkKOfN(
  config: KOfNConfig,
  review: ProtocolNode | undefined,
  at: At,
  findings: ProtocolFindings,
): void {
  checkField(config.field, review, at, findings);
  const accept = predicateValues(config.accept, at("config", "accept", "predicate", "value"), findings);
  const reject = predicateValues(config.reject, at("config", "reject", "predicate", "value"), findings);
  if (accept !== undefined && reject !== undefined) {
    const acceptKeys = new Set(accept.map(scalarKey));
    const shared = reject.filter((v) => acceptKeys.has(scalarKey(v)));
    if (shared.length > 0) {
      findings.violation(
        13,
        at("config", "reject", "predicate", "value"),
        `accept and reject both match ${shared.map((v) => JSON.stringify(v)).join(", ")}; make the two value sets disjoint`,
      );
    }
  }

  const count = review?.reviewers?.count;
  if (count === undefined) return;
  for (const side of ["accept", "reject"] as const) {
    if (config[side].k > count) {
      findings.violation(
        13,
        at("config", side, "k"),
        `${side}.k is ${config[side].k} but "${review!.id}" has only ${count} reviewers; lower it to at most ${count}`,
      );
    }
  }
  if (config.accept.k + config.reject.k <= count) {
    findings.violation(
      13,
      at("config"),
      `accept.k + reject.k is ${config.accept.k + config.reject.k}, not more than the ${count} reviewers of "${review!.id}", so both outcomes could hold; raise accept.k or reject.k`,
    );
  }
}

function checkThreshold(
  config: ThresholdConfig,
  review: ProtocolNode | undefined,
  at: At,
  findings: ProtocolFindings,
): void {
  if (config.reject_lt > config.accept_gte) {
    findings.violation(
      14,
      at("config", "reject_lt"),
      `reject_lt (${config.reject_lt}) exceeds accept_gte (${config.accept_gte}), so both outcomes could hold; make reject_lt at most accept_gte`,
    );
  }
  const field = checkField(config.field, review, at, findings);
  if (field.declared && !isNumericSchema(field.schema)) {
    findings.violation(
      14,
      at("config", "field"),
      `threshold aggregates numbers, and "${config.field}" is not declared with type number or integer in "${review!.id}"'s response_schema; declare it numeric or use k_of_n`,
    );
  }
}

/** Rule 12; `declared` is false both when the field is missing and when that cannot be told. */
function checkField(
  field: string,
  review: ProtocolNode | undefined,
  at: At,
  findings: ProtocolFindings,
): { declared: false } | { declared: true; schema: unknown } {
  const properties = review?.rubric?.response_schema.properties;
  // Without a review input or with a malformed `properties` (rule 11), there is nothing to check against.
  if (review === undefined || review.rubric === null || !isPlainObject(properties ?? {}))
    return { declared: false };
  // A null `properties` declares nothing, as an absent one does.
  const declared = (properties ?? undefined) as Record<string, unknown> | undefined;
  if (declared !== undefined && Object.hasOwn(declared, field))
    return { declared: true, schema: declared[field] };
  const names = Object.keys(declared ?? {});
  findings.violation(
    12,
    at("config", "field"),
    `field "${field}" is not a top-level property of "${review.id}"'s response_schema (${names.length > 0 ? `it declares ${names.join(", ")}` : "it declares none"}); name a declared property or declare it`,
  );
  return { declared: false };
}

/** Rule 13's predicate shapes; the values when well-formed. */
function predicateValues(
  clause: PredicateClause,
  at: string,
  findings: ProtocolFindings,
): Scalar[] | undefined {
  const { op, value } = clause.predicate;
  if (op === "eq") {
    if (isScalar(value)) return [value];
    findings.violation(
      13,
      at,
      "eq compares with one scalar (string, number, boolean or null); use in for a list",
    );
    return undefined;
  }
  if (!Array.isArray(value) || value.length === 0) {
    findings.violation(13, at, "in takes a non-empty array of scalars; list the values that match");
    return undefined;
  }
  let ok = true;
  value.forEach((item, k) => {
    if (isScalar(item)) return;
    ok = false;
    findings.violation(
      13,
      `${at}/${k}`,
      "in compares scalars only (string, number, boolean or null); remove this item",
    );
  });
  return ok ? (value as Scalar[]) : undefined;
}

function isScalar(value: unknown): value is Scalar {
  return value === null || ["string", "number", "boolean"].includes(typeof value);
}

/** Equal JSON scalars give equal keys; 1 and "1" do not. */
function scalarKey(value: Scalar): string {
  return `${typeof value}:${JSON.stringify(value)}`;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isNumericSchema(schema: unknown): boolean {
  if (!isPlainObject(schema)) return false;
  const types = Array.isArray(schema.type) ? schema.type : [schema.type];
  return types.length > 0 && types.every((t) => t === "number" || t === "integer");
}
