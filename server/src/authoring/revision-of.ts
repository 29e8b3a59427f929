import type { PlanProblem } from "@svc/schemas";

/** The pinned, immutable content of a ProblemRevision (spec 2.3), with published ids. */
export interface RevisionContent {
  statement_md: string;
  benchmark: PlanProblem["benchmark"];
  verifier_contract_id: string | null;
  verifier_input_bindings: Array<{
    key: string;
    content_hash: string;
    size_bytes: number;
    media_type: string;
    filename: string;
    url?: string;
  }>;
  sealing: Record<string, unknown> | null;
  skill_refs: Array<{ skill_version_id: string; requirement: string }>;
}

/**
 * What a planned problem's next revision pins: local skills and contract replaced by the ids they
 * were published as, bindings as stored (a linked one keeps its url; a stored one's bytes are in
 * the blob store), and the authored sealing policy with the derived fields the service supplies.
 */
export function revisionOf(
  problem: PlanProblem,
  skillIds: ReadonlyMap<string, string>,
  contractIds: ReadonlyMap<string, string>,
): RevisionContent {
  const local = problem.skills.map((s) => ({
    skill_version_id: idOf(skillIds, s.skill),
    requirement: s.requirement,
  }));
  const sealing = problem.sealing
    ? {
        ...problem.sealing,
        submission_closes_at: problem.sealing.submission_closes_at ?? null,
        entries: problem.sealing.entries ?? "collaborative",
        unsealed_at: null,
        release_event: null,
        // Derived from the sealed bindings and the owner when the revision is stored.
        evaluation_id: null,
      }
    : null;
  return {
    statement_md: problem.statement_md,
    benchmark: problem.benchmark,
    verifier_contract_id: problem.verifier_contract
      ? idOf(contractIds, problem.verifier_contract)
      : problem.published_verifier_contract,
    verifier_input_bindings: problem.reference_inputs.map((r) => ({
      key: r.key,
      content_hash: r.content_hash,
      size_bytes: r.size_bytes,
      media_type: r.media_type,
      filename: r.filename,
      ...(r.url === null ? {} : { url: r.url }),
    })),
    sealing,
    skill_refs: [...local, ...problem.published_skills],
  };
}

function idOf(ids: ReadonlyMap<string, string>, hash: string): string {
  const id = ids.get(hash);
  if (!id) throw new Error(`the plan names ${hash} without planning it`);
  return id;
}
