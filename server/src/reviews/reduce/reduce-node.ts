import type { KOfNConfig, ProtocolNode, ThresholdConfig } from "@svc/schemas";
import type { ReduceInput, Reduction } from "../reduction.ts";
import { reduceCoalesce } from "./reduce-coalesce.ts";
import { reduceKOfN } from "./reduce-k-of-n.ts";
import { reduceThreshold } from "./reduce-threshold.ts";

/**
 * Reduces one reduce node of a linted protocol over what it reads: judgments for k_of_n and
 * threshold, input outcomes for coalesce. Pure and deterministic. Throws only on a caller's
 * mistake (not a reduce node, or the wrong kind of input for its op), never on response data.
 */
export function reduceNode(node: ProtocolNode, input: ReduceInput): Reduction {
  if (node.type !== "reduce" || node.op === null || node.config === null) {
    throw new Error(`node "${node.id}" is not a reduce node with an op and a config`);
  }
  const inputs = node.inputs ?? [];
  switch (node.op) {
    case "k_of_n":
    case "threshold": {
      if (input.kind !== "judgments") {
        throw new Error(`${node.op} node "${node.id}" reads judgments, not input outcomes`);
      }
      return node.op === "k_of_n"
        ? reduceKOfN(inputs, node.config as KOfNConfig, input.judgments)
        : reduceThreshold(inputs, node.config as ThresholdConfig, input.judgments);
    }
    case "coalesce": {
      if (input.kind !== "outcomes") {
        throw new Error(`coalesce node "${node.id}" reads its inputs' outcomes, not judgments`);
      }
      return reduceCoalesce(inputs, input.outcomes);
    }
    default: {
      const never: never = node.op;
      throw new Error(`Unhandled reduce op: ${String(never)}`);
    }
  }
}
