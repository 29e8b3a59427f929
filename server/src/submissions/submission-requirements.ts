import type { StageKind, SubmissionRequirements } from "@svc/schemas";
import type { Sql } from "../core/db/connect-sql.ts";

/** What a revision's pinned Contract asks of a Submission: its requirements and stage kinds. */
export interface ContractTerms {
  verifier_contract_id: string;
  requirements: SubmissionRequirements;
  /** Stage keys and kinds in Contract order (continuations report pending review stages). */
  stages: Array<{ key: string; kind: StageKind }>;
}

/** The terms of Contract `id`, or null for a revision that pins none (results recorded, not checked). */
export async function readContractTerms(sql: Sql, id: string | null): Promise<ContractTerms | null> {
  if (id === null) return null;
  const [row] = await sql<{ document: Record<string, unknown> }[]>`
    select document from verifier_contracts where id = ${id}`;
  if (!row) return null;
  const requirements = (row.document.submission_requirements ?? {}) as Partial<SubmissionRequirements>;
  const stages = (row.document.stages ?? []) as Array<{
    key: string;
    kind: ContractTerms["stages"][0]["kind"];
  }>;
  return {
    verifier_contract_id: id,
    requirements: {
      required_artifacts: requirements.required_artifacts ?? [],
      accepts_text_only: requirements.accepts_text_only ?? false,
      answer_format_md: requirements.answer_format_md ?? null,
    },
    stages: stages.map((stage) => ({ key: stage.key, kind: stage.kind })),
  };
}
