import type { SkillRequirement } from "@svc/schemas";
/** A reference binding of a revision (spec 2.3): stored (no `url`) or linked (`url` present). */
export interface ReferenceBinding {
  key: string;
  content_hash: string;
  size_bytes: number;
  media_type: string;
  filename?: string;
  url?: string;
}

/** A revision's sealing policy with the fields the service derives (spec 2.3). */
export interface RevisionSealing {
  sealed_until: string;
  unsealed_at: string | null;
  submission_closes_at?: string | null;
  [field: string]: unknown;
}

/**
 * The canonical ProblemRevision (spec 2.3, schema 1.5.0): exactly these fields, no delivery URIs
 * and no provenance columns (the upload id stays internal).
 */
export interface ProblemRevision {
  id: string;
  problem_id: string;
  revision_number: number;
  statement_md: string;
  context_md: string | null;
  benchmark: Record<string, unknown> | null;
  verifier_contract_id: string | null;
  verifier_input_bindings: ReferenceBinding[];
  sealing: RevisionSealing | null;
  skill_refs: Array<{ skill_version_id: string; requirement: SkillRequirement }>;
  changelog_md: string | null;
  created_by_user_id: string;
  created_at: string;
}

/** A `problem_revisions` row as selected with `select *`. */
export type ProblemRevisionRow = Omit<ProblemRevision, "created_at"> & {
  created_at: Date;
  upload_id: string | null;
};

/** The canonical ProblemRevision of a row. */
export function toProblemRevision(row: ProblemRevisionRow): ProblemRevision {
  return {
    id: row.id,
    problem_id: row.problem_id,
    revision_number: row.revision_number,
    statement_md: row.statement_md,
    context_md: row.context_md,
    benchmark: row.benchmark,
    verifier_contract_id: row.verifier_contract_id,
    verifier_input_bindings: row.verifier_input_bindings,
    sealing: row.sealing,
    skill_refs: row.skill_refs,
    changelog_md: row.changelog_md,
    created_by_user_id: row.created_by_user_id,
    created_at: row.created_at.toISOString(),
  };
}
