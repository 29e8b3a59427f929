import type { ReviewProtocolDocument, SubjectKind } from "@svc/schemas";
import { IdPrefix } from "@svc/schemas";
import type postgres from "postgres";
import type { Sql } from "../core/db/connect-sql.ts";
import { ServiceError } from "../core/errors/service-error.ts";
import { randomId } from "../core/ids/random-id.ts";

/** What a process examines and who made it; the stage that started it, when one did. */
export interface StartReviewProcessInput {
  review_protocol_id: string;
  subject_kind: SubjectKind;
  subject_id: string;
  subject_user_id: string;
  subject_organization_id: string | null;
  problem_id: string | null;
  problem_revision_id: string | null;
  campaign_id: string | null;
  verification_run_id?: string;
  stage_key?: string;
}

/**
 * Starts a ReviewProcess on a published protocol: snapshots its document and content hash (a
 * later yank changes nothing here) and creates every node `pending`. Nothing opens yet: the
 * caller commits, then calls `advanceReviewProcess`. A review stage of a VerificationRun starts
 * one process only: calling again for the same run and stage returns the existing id.
 * Returns the `rpr_` id.
 */
export async function startReviewProcess(
  tx: Sql,
  now: Date,
  input: StartReviewProcessInput,
): Promise<string> {
  const [protocol] = await tx<{ content_hash: string; document: ReviewProtocolDocument }[]>`
    select content_hash, document from review_protocols where id = ${input.review_protocol_id}`;
  if (!protocol) {
    throw new ServiceError("not_found", `no review protocol has the id "${input.review_protocol_id}"`, {
      field: "review_protocol_id",
      review_protocol_id: input.review_protocol_id,
    });
  }
  const document = protocol.document;
  if (document.subject_kind !== input.subject_kind) {
    throw new ServiceError(
      "invalid_input",
      `subject_kind is "${input.subject_kind}" but protocol ${input.review_protocol_id} examines a ${document.subject_kind}`,
      { field: "subject_kind", expected: document.subject_kind },
    );
  }
  const id = randomId(IdPrefix.reviewProcess);
  const inserted = await tx<{ id: string }[]>`
    insert into review_processes
      (id, review_protocol_id, protocol_hash, protocol_snapshot, subject_kind, subject_id, subject_user_id,
       subject_organization_id, problem_id, problem_revision_id, campaign_id, verification_run_id, stage_key, created_at)
    values
      (${id}, ${input.review_protocol_id}, ${protocol.content_hash},
       ${tx.json(document as unknown as postgres.JSONValue)}, ${input.subject_kind}, ${input.subject_id},
       ${input.subject_user_id}, ${input.subject_organization_id}, ${input.problem_id}, ${input.problem_revision_id},
       ${input.campaign_id}, ${input.verification_run_id ?? null}, ${input.stage_key ?? null}, ${now})
    on conflict (verification_run_id, stage_key) where verification_run_id is not null do nothing
    returning id`;
  if (inserted.length === 0) {
    const [existing] = await tx<{ id: string }[]>`
      select id from review_processes
      where verification_run_id = ${input.verification_run_id ?? null} and stage_key = ${input.stage_key ?? null}`;
    return existing!.id;
  }
  for (const node of document.nodes) {
    const seats = node.type === "review" ? (node.reviewers?.count ?? 1) : null;
    await tx`
      insert into review_nodes (review_process_id, node_id, type, seats)
      values (${id}, ${node.id}, ${node.type}, ${seats})`;
  }
  return id;
}
