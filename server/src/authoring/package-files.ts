import type { Plan } from "@svc/schemas";

/** The package-relative path of a problem's file; `dir` is "." for a standalone package. */
export function problemFile(dir: string, name: string): string {
  return dir === "." ? name : `${dir}/${name}`;
}

/**
 * The verifier-contract.json a planned contract came from: the first problem using it has one
 * beside it, or inherits the campaign's at the root.
 */
export function contractFile(plan: Plan, contractHash: string, has: (path: string) => boolean): string {
  for (const problem of plan.problems) {
    if (problem.verifier_contract !== contractHash) continue;
    const own = problemFile(problem.dir, "verifier-contract.json");
    if (has(own)) return own;
  }
  return "verifier-contract.json";
}
