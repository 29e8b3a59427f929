import type { CheckerResult } from "@svc/schemas";
import { parseAssignment } from "./parse-assignment.ts";
import { type Cnf, parseDimacs } from "./parse-dimacs.ts";

/** A builtin's verdict and the sentence that explains it. */
export interface BuiltinVerdict {
  result: CheckerResult;
  summary: string;
}

/**
 * `svc-builtin/sat-assignment-check:1` (decisions.md): verified when every clause of the DIMACS
 * instance has a true literal and no variable is given both signs; refuted otherwise;
 * inconclusive when either file cannot be parsed. Variables the instance lacks are ignored, and an
 * unassigned variable makes none of its literals true.
 */
export function checkSatAssignment(instanceText: string, assignmentText: string): BuiltinVerdict {
  const cnf = parseDimacs(instanceText);
  if (!cnf.ok) return { result: "inconclusive", summary: `the instance is not DIMACS CNF: ${cnf.reason}` };
  const assignment = parseAssignment(assignmentText);
  if (!assignment.ok) {
    return { result: "inconclusive", summary: `the assignment does not parse: ${assignment.reason}` };
  }
  return judge(cnf.value, assignment.value);
}

function judge(cnf: Cnf, literals: number[]): BuiltinVerdict {
  const truth = new Set(literals);
  for (const literal of truth) {
    if (literal > 0 && truth.has(-literal)) {
      return { result: "refuted", summary: `variable ${literal} is given both signs` };
    }
  }
  for (const [index, clause] of cnf.clauses.entries()) {
    if (!clause.some((literal) => truth.has(literal))) {
      return {
        result: "refuted",
        summary: `clause ${index + 1} (${clause.join(" ")} 0) has no true literal`,
      };
    }
  }
  return {
    result: "verified",
    summary: `all ${cnf.clauses.length} clauses over ${cnf.variables} variables are satisfied`,
  };
}
