import type { ResultKind } from "@svc/schemas";
/**
 * The canonical VerifierContract (spec 2.5 fields; decisions.md "Package files"): its id,
 * publisher, content hash and creation time, then the published document's fields at top level
 * (a local `./review-protocol.json` already replaced by the published `rpt_` id).
 */
export interface VerifierContract {
  id: string;
  publisher_user_id: string;
  content_hash: string;
  created_at: string;
  title: string;
  statement_md: string;
  reference_inputs: unknown[];
  stages: unknown[];
  submission_requirements: Record<string, unknown>;
  result_kind: ResultKind;
  score: Record<string, unknown> | null;
  conformance_fixtures: unknown[];
}

/** A `verifier_contracts` row. */
export interface VerifierContractRow {
  id: string;
  publisher_user_id: string;
  content_hash: string;
  document: Record<string, unknown>;
  created_at: Date;
}

/** The canonical Contract of a row; document fields absent from an old document take their defaults. */
export function toVerifierContract(row: VerifierContractRow): VerifierContract {
  const d = row.document;
  return {
    id: row.id,
    publisher_user_id: row.publisher_user_id,
    content_hash: row.content_hash,
    created_at: row.created_at.toISOString(),
    title: d.title as string,
    statement_md: (d.statement_md as string | undefined) ?? "",
    reference_inputs: (d.reference_inputs as unknown[] | undefined) ?? [],
    stages: (d.stages as unknown[] | undefined) ?? [],
    submission_requirements: (d.submission_requirements as Record<string, unknown> | undefined) ?? {
      required_artifacts: [],
      accepts_text_only: false,
      answer_format_md: null,
    },
    result_kind: d.result_kind as VerifierContract["result_kind"],
    score: (d.score as Record<string, unknown> | null | undefined) ?? null,
    conformance_fixtures: (d.conformance_fixtures as unknown[] | undefined) ?? [],
  };
}
