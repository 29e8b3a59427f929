import type { PublishResult, UploadState, ValidationResult } from "@svc/schemas";
import type { Sql } from "../core/db/connect-sql.ts";
import { ServiceError } from "../core/errors/service-error.ts";
import type { LiveSnapshot } from "./read-live-state.ts";

/** What validation stores: its result and the live snapshot publication re-checks. */
export interface StoredValidation extends ValidationResult {
  snapshot: LiveSnapshot | null;
}

/** One row of `authoring_uploads` as the authoring functions read it. */
export interface AuthoringUpload {
  id: string;
  user_id: string;
  state: UploadState;
  size_bytes: number;
  content_hash: string;
  expires_at: Date;
  uploaded_at: Date | null;
  validation: StoredValidation | null;
  plan_hash: string | null;
  publish_result: PublishResult | null;
  /** The row's version (PostgreSQL's xmin): it changes with every update of the row. */
  row_version: string;
}

/**
 * The caller's own upload, optionally locked for the rest of the transaction. Another user's id is
 * not_found, exactly like an unknown one: an upload id reveals nothing about its owner's work.
 */
export async function findOwnUpload(
  sql: Sql,
  userId: string,
  uploadId: string,
  options: { lock?: boolean } = {},
): Promise<AuthoringUpload> {
  const lock = options.lock ? sql`for update` : sql``;
  const [row] = await sql<AuthoringUpload[]>`
    select id, user_id, state, size_bytes::integer as size_bytes, content_hash, expires_at, uploaded_at,
      validation, plan_hash, publish_result, xmin::text as row_version
    from authoring_uploads where id = ${uploadId} and user_id = ${userId} ${lock}`;
  if (!row) {
    throw new ServiceError(
      "not_found",
      `no upload of yours has the id ${uploadId}: pass the upload_id request_authoring_upload returned`,
      { upload_id: uploadId },
    );
  }
  return row;
}

/**
 * Locks the caller's upload for the rest of the transaction and returns it: `read` itself when
 * the row has not changed since it was read (same row version), so its validation (a megabyte of
 * JSON for a 300-problem campaign) is not read and parsed a second time; else the row as it is now.
 */
export async function lockOwnUpload(sql: Sql, read: AuthoringUpload): Promise<AuthoringUpload> {
  const [row] = await sql<{ row_version: string }[]>`
    select xmin::text as row_version from authoring_uploads
    where id = ${read.id} and user_id = ${read.user_id} for update`;
  if (row?.row_version === read.row_version) return read;
  return await findOwnUpload(sql, read.user_id, read.id, { lock: true });
}
