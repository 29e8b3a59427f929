import type { RedactionReason } from "@svc/schemas";
import type postgres from "postgres";
import type { Sql } from "../core/db/connect-sql.ts";
import { ServiceError } from "../core/errors/service-error.ts";
import type { Services } from "../core/services/services.ts";
import type { Viewer } from "../visibility/viewer.ts";
import type { StageLog } from "./stage-record.ts";

/** What redact_stage_log returns. */
export interface StageLogRedaction {
  verification_run_id: string;
  stage_key: string;
  /** The stage's log as it is now: the replacement's hash and size, and the redaction record. */
  log: StageLog;
  /**
   * Whether the original bytes left the blob store. They stay while another record holds the same
   * bytes (the store is content-addressed): `other_logs_with_same_bytes` names the stage logs to
   * redact too; the last redaction removes them.
   */
  original_bytes_removed: boolean;
  other_logs_with_same_bytes: Array<{ verification_run_id: string; stage_key: string }>;
}

/**
 * redact_stage_log (spec 2.4 `log.redaction`): an operator (a live administrator) replaces the
 * bytes of one stage's captured log, for one of the three reasons, once. The log keeps its
 * `truncated` flag and records the original hash and size beside who redacted it and when; its
 * `content_hash` and `size_bytes` become those of a short notice, which is what every read of the
 * log serves from then on. Inputs, artifact hashes, stage results, the run's result and
 * evidence_md are never redactable: there is no tool for them. The original bytes are deleted
 * from the blob store once no record holds them. `viewer` null is an operator with shell access
 * (`svc-server run redact-log`), recorded as a null `redacted_by_user_id`.
 */
export async function redactStageLog(
  services: Pick<Services, "sql" | "blobs" | "clock">,
  viewer: Viewer | null,
  input: { verification_run_id: string; stage_key: string; reason: RedactionReason },
): Promise<StageLogRedaction> {
  const { verification_run_id: runId, stage_key: stageKey } = input;
  if (viewer && !viewer.isAdministrator) {
    throw new ServiceError(
      "forbidden",
      "redacting a stage log is for the service's operators (administrators)",
      {
        verification_run_id: runId,
        stage_key: stageKey,
      },
    );
  }
  const redactedAt = services.clock().toISOString();
  const result = await services.sql.begin(async (tx) => {
    const [row] = await tx<{ log: StageLog | null }[]>`
      select log from verification_stage_results
      where verification_run_id = ${runId} and stage_key = ${stageKey} for update`;
    if (!row?.log) {
      throw new ServiceError(
        "not_found",
        `run "${runId}" has no captured log for a stage "${stageKey}": only a finished sandbox stage's log is redactable`,
        { verification_run_id: runId, stage_key: stageKey },
      );
    }
    const original = row.log;
    if (original.redaction !== null) {
      throw new ServiceError(
        "already_redacted",
        `the log of stage "${stageKey}" of run ${runId} is already redacted; a redaction is written once`,
        { verification_run_id: runId, stage_key: stageKey, redaction: original.redaction },
      );
    }
    const notice = Buffer.from(
      `[log redacted by an operator at ${redactedAt} (${input.reason}); the original ${original.size_bytes} bytes (${original.content_hash}) are no longer served]\n`,
    );
    const replacement = await services.blobs.put(notice);
    const log: StageLog = {
      content_hash: replacement.content_hash,
      size_bytes: replacement.size_bytes,
      truncated: original.truncated,
      redaction: {
        redacted_at: redactedAt,
        redacted_by_user_id: viewer?.userId ?? null,
        reason: input.reason,
        original_content_hash: original.content_hash,
        original_size_bytes: original.size_bytes,
      },
    };
    await tx`
      update verification_stage_results set log = ${tx.json(log as unknown as postgres.JSONValue)}
      where verification_run_id = ${runId} and stage_key = ${stageKey}`;
    const others = await tx<{ verification_run_id: string; stage_key: string }[]>`
      select verification_run_id, stage_key from verification_stage_results
      where log ->> 'content_hash' = ${original.content_hash}
      order by verification_run_id, position`;
    return { log, originalHash: original.content_hash, others };
  });
  // After the commit, so a failed update never loses bytes a record still names.
  const referenced = result.others.length > 0 || (await blobReferenced(services.sql, result.originalHash));
  const removed = referenced ? false : await services.blobs.delete(result.originalHash);
  return {
    verification_run_id: runId,
    stage_key: stageKey,
    log: result.log,
    original_bytes_removed: removed,
    other_logs_with_same_bytes: result.others,
  };
}

/**
 * Whether any record other than a stage log holds these bytes: the blob store is content-addressed,
 * so identical bytes stored for an artifact, an evidence file, a program, a reference input, a
 * skill file, a conformance fixture or an upload are the same blob and must stay.
 */
async function blobReferenced(sql: Sql, hash: string): Promise<boolean> {
  const quoted = `%"${hash}"%`;
  const [row] = await sql<{ referenced: boolean }[]>`
    select exists (select 1 from artifacts where content_hash = ${hash})
      or exists (select 1 from artifact_uploads where content_hash = ${hash})
      or exists (select 1 from authoring_uploads where content_hash = ${hash})
      or exists (select 1 from verification_stage_results where evidence_files::text like ${quoted})
      or exists (select 1 from verifier_implementations where program ->> 'content_hash' = ${hash})
      or exists (select 1 from problem_revisions where verifier_input_bindings::text like ${quoted})
      or exists (select 1 from skill_versions where files::text like ${quoted})
      or exists (select 1 from verifier_contracts where document::text like ${quoted}) as referenced`;
  return row!.referenced;
}
