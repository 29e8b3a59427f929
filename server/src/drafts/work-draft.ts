import type { DraftStatus, Visibility } from "@svc/schemas";
import type { Sql } from "../core/db/connect-sql.ts";
import { ServiceError } from "../core/errors/service-error.ts";
import type { Viewer } from "../visibility/viewer.ts";

/**
 * Glossary (docs/work-drafts.md): a *work draft* is a package kept in the service instead of in
 * Git; its *version* counts saves and is shown as a string; *preparing* a version materializes it
 * as private work through an authoring upload of the draft's owner; *publishing* raises that
 * work's visibility. A draft belongs to its owner; administrators may act on any draft.
 */

/** One file of a draft: its bytes are a blob, named by hash. */
export interface DraftFile {
  path: string;
  content_hash: string;
  size_bytes: number;
}

/** A validation error, or a reconciliation conflict (code `conflict`, `file` empty), of the last failed prepare. */
export interface DraftLintError {
  file: string;
  path: string;
  code: string;
  message: string;
}

/** What a draft materialized: its Campaign (if the package has one) and its Problems. */
export interface DraftWork {
  campaign_id: string | null;
  problem_ids: string[];
}

/** A row of `work_drafts`. */
export interface DraftRow {
  id: string;
  owner_user_id: string;
  title: string;
  version: number;
  status: DraftStatus;
  files: DraftFile[];
  content_hash: string;
  prepared_version: number | null;
  prepared_upload_id: string | null;
  plan_hash: string | null;
  lint_errors: DraftLintError[];
  work: DraftWork | null;
  published_version: number | null;
  visibility: Visibility;
  reviewed_version: number | null;
  created_at: Date;
  updated_at: Date;
}

/** A draft as the tools show it: versions are strings (spec 4.1 pins "the draft version (string)"). */
export interface WorkDraft {
  id: string;
  owner_user_id: string;
  title: string;
  version: string;
  status: DraftStatus;
  files: DraftFile[];
  content_hash: string;
  prepared_version: string | null;
  prepared_upload_id: string | null;
  plan_hash: string | null;
  lint_errors: DraftLintError[];
  work: DraftWork | null;
  published_version: string | null;
  reviewed_version: string | null;
  visibility: Visibility;
  created_at: string;
  updated_at: string;
}

const versionText = (n: number | null) => (n === null ? null : String(n));

/** The wire shape of a draft row. */
export function toWorkDraft(row: DraftRow): WorkDraft {
  return {
    id: row.id,
    owner_user_id: row.owner_user_id,
    title: row.title,
    version: String(row.version),
    status: row.status,
    files: row.files,
    content_hash: row.content_hash,
    prepared_version: versionText(row.prepared_version),
    prepared_upload_id: row.prepared_upload_id,
    plan_hash: row.plan_hash,
    lint_errors: row.lint_errors,
    work: row.work,
    published_version: versionText(row.published_version),
    reviewed_version: versionText(row.reviewed_version),
    visibility: row.visibility,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

/**
 * The draft `draftId` for a viewer who may act on it (its owner or an administrator), optionally
 * locked for the caller's transaction. Anyone else's draft is not_found, like an unknown id: a
 * draft is private and its id reveals nothing.
 */
export async function findDraft(
  sql: Sql,
  viewer: Viewer,
  draftId: string,
  options: { lock?: boolean } = {},
): Promise<DraftRow> {
  const [row] = await sql<DraftRow[]>`
    select * from work_drafts where id = ${draftId} ${options.lock ? sql`for update` : sql``}`;
  if (!row || (row.owner_user_id !== viewer.userId && !viewer.isAdministrator)) {
    throw new ServiceError(
      "not_found",
      `no draft of yours has the id ${draftId}: list_work_drafts shows your drafts`,
      { draft_id: draftId },
    );
  }
  return row;
}

/** Throws stale_draft_version unless `expected` (a version string) is the draft's current version. */
export function checkDraftVersion(draft: DraftRow, expected: string): void {
  if (expected !== String(draft.version)) {
    throw new ServiceError(
      "stale_draft_version",
      `draft ${draft.id} is at version ${draft.version}, not ${expected}: read it again (get_work_draft) and retry with expected_version "${draft.version}"`,
      { draft_id: draft.id, expected_version: expected, current_version: String(draft.version) },
    );
  }
}
