import { type ContentHash, hashJson } from "@svc/app";
import type { PlanProblem } from "@svc/schemas";

/**
 * The parts of a problem's effective task, each hashed on its own so a reconciliation can say
 * which changed. Spec section 3: statement, benchmark, pinned Skills, pinned Contract and exact
 * reference bindings (keys, media types, content hashes, sizes, filenames and link urls).
 * revision_note and VerifierImplementations are deliberately absent: a corrected checker under an
 * unchanged Contract moves no revision.
 *
 * Sealing is included too, although section 3 does not list it: the policy lives on the immutable
 * revision, so a changed policy can only take effect as a new revision, never silently as a noop.
 */
export interface TaskComponents {
  statement: ContentHash;
  benchmark: ContentHash;
  skills: ContentHash;
  contract: ContentHash;
  references: ContentHash;
  sealing: ContentHash;
}

export const TASK_COMPONENT_NAMES = [
  "statement",
  "benchmark",
  "skills",
  "contract",
  "references",
  "sealing",
] as const;

export function taskComponents(problem: PlanProblem): TaskComponents {
  return {
    statement: hashJson(problem.statement_md),
    benchmark: hashJson(problem.benchmark),
    skills: hashJson({ local: problem.skills, published: problem.published_skills }),
    contract: hashJson({ local: problem.verifier_contract, published: problem.published_verifier_contract }),
    references: hashJson(problem.reference_inputs),
    sealing: hashJson(problem.sealing),
  };
}

/** One hash of the whole effective task: equal fingerprints mean a semantically identical task. */
export function taskFingerprint(components: TaskComponents): ContentHash {
  return hashJson(components);
}
