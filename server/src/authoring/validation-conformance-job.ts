import type { Plan } from "@svc/schemas";
import type postgres from "postgres";
import { validationConformance } from "../conformance/validation-conformance.ts";
import type { Sql } from "../core/db/connect-sql.ts";
import { TaskName } from "../core/jobs/task-name.ts";
import type { Services } from "../core/services/services.ts";
import { readUploadTree } from "./read-upload-tree.ts";

/** Queues an upload's sandboxed fixtures at validation, once per upload and plan. */
export async function queueValidationConformance(
  sql: Sql,
  uploadId: string,
  planHash: string,
): Promise<void> {
  await sql`
    select graphile_worker.add_job(${TaskName.validationConformance},
      json_build_object('upload_id', ${uploadId}::text, 'plan_hash', ${planHash}::text),
      max_attempts => 3, job_key => ${`validation-conformance:${uploadId}`})`;
}

/**
 * The `validation_conformance` job: runs the sandboxed fixtures of a validated upload's stored
 * plan, in the host's sandbox budget as the uploader's work, and completes the stored
 * validation's `conformance`. A validation of another plan since, or one already complete, is
 * left alone: the record is written once, at the end, so a worker dying mid-fixture leaves it
 * `pending` and the job runs again (docs/verification.md, "A worker that dies").
 */
export async function runValidationConformance(
  services: Services,
  input: { upload_id: string; plan_hash: string },
): Promise<"completed" | "skipped"> {
  const { sql } = services;
  const [upload] = await sql<
    { user_id: string; content_hash: string; plan: Plan | null; pending: boolean }[]
  >`
    select user_id, content_hash, validation->'plan' as plan,
      coalesce(validation->>'conformance_state' = 'pending', false) as pending
    from authoring_uploads
    where id = ${input.upload_id} and plan_hash = ${input.plan_hash} and state <> 'published'`;
  if (!upload?.pending || !upload.plan) return "skipped";
  const tree = await readUploadTree(services.blobs, upload.content_hash);
  const entries = await validationConformance(services, upload.user_id, upload.plan, tree, "sandboxed");
  await sql`
    update authoring_uploads
    set validation = validation || jsonb_build_object(
      'conformance', (validation->'conformance') || ${sql.json(entries as unknown as postgres.JSONValue)}::jsonb,
      'conformance_state', 'complete')
    where id = ${input.upload_id} and plan_hash = ${input.plan_hash}
      and validation->>'conformance_state' = 'pending'`;
  return "completed";
}
