import type { StageKind, SubmissionRequirements } from "@svc/schemas";
import type { Sql } from "../core/db/connect-sql.ts";

/** What a revision's pinned Contract asks of a Submission: its requirements and stage kinds. */
export interface ContractTerms {
  verifier_contract_id: string;
  requirements: SubmissionRequirements;
  /** Stage keys and kinds in Contract order (continuations report pending review stages). */
  stages: Array<{ key: string; kind: StageKind }>;
}

/**
 * Terms by Contract id. A Contract never changes (triggers refuse updates and deletes, migration
 * 002) and its id is random, so terms read once hold for the life of the process: a Submission
 * then costs one round trip less. Bounded: cleared when full.
 */
const known = new Map<string, ContractTerms>();
const KNOWN_LIMIT = 10_000;

/** The terms of Contract `id`, or null for a revision that pins none (results recorded, not checked). */
export async function readContractTerms(sql: Sql, id: string | null): Promise<ContractTerms | null> {
  if (id === null) return null;
  const cached = known.get(id);
  if (cached) return cached;
  const [row] = await sql<{ document: Record<string, unknown> }[]>`
    select document from verifier_contracts where id = ${id}`;
  if (!row) return null;
  const terms = contractTerms(id, row.document);
  if (known.size >= KNOWN_LIMIT) known.clear();
  known.set(id, terms);
  return terms;
}

/** A Contract document's terms, frozen: every caller shares the remembered object. */
function contractTerms(id: string, document: Record<string, unknown>): ContractTerms {
  const requirements = (document.submission_requirements ?? {}) as Partial<SubmissionRequirements>;
  const stages = (document.stages ?? []) as Array<{ key: string; kind: ContractTerms["stages"][0]["kind"] }>;
  return Object.freeze({
    verifier_contract_id: id,
    requirements: Object.freeze({
      required_artifacts: Object.freeze(requirements.required_artifacts ?? []),
      accepts_text_only: requirements.accepts_text_only ?? false,
      answer_format_md: requirements.answer_format_md ?? null,
    }),
    stages: Object.freeze(stages.map((stage) => Object.freeze({ key: stage.key, kind: stage.kind }))),
  }) as ContractTerms;
}
