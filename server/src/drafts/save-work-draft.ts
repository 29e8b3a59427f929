import { DraftStatus, IdPrefix, UploadState } from "@svc/schemas";
import { findOwnUpload } from "../authoring/authoring-upload.ts";
import { readUploadTree } from "../authoring/read-upload-tree.ts";
import { inTransaction } from "../core/db/in-transaction.ts";
import { ServiceError } from "../core/errors/service-error.ts";
import { randomId } from "../core/ids/random-id.ts";
import type { Services } from "../core/services/services.ts";
import type { Viewer } from "../visibility/viewer.ts";
import { recordWorkAudit } from "../work/record-work-audit.ts";
import { type DraftFileInput, draftContentHash, storeDraftFiles, storeTree } from "./draft-files.ts";
import {
  checkDraftVersion,
  type DraftFile,
  type DraftRow,
  findDraft,
  toWorkDraft,
  type WorkDraft,
} from "./work-draft.ts";

export interface SaveWorkDraftInput {
  /** Absent to create a draft. */
  draft_id?: string | undefined;
  /** Required when editing: the version the caller read. */
  expected_version?: string | undefined;
  title?: string | undefined;
  /** The package's files, replacing the draft's files as a whole. */
  files?: DraftFileInput[] | undefined;
  /** An authoring upload of the draft's owner whose archive becomes the draft's files. */
  upload_id?: string | undefined;
}

/**
 * save_work_draft (spec 4.1): creates a draft (version "1") or saves a new version of one. The
 * bytes are stored first, outside the transaction (blobs are content-addressed, so an unused one
 * is harmless); the transaction then locks the draft and checks expected_version, so of two saves
 * of one version exactly one wins and the other is refused with the current version named.
 */
export async function saveWorkDraft(
  services: Services,
  viewer: Viewer,
  input: SaveWorkDraftInput,
): Promise<{ draft: WorkDraft; version: string }> {
  if (input.files !== undefined && input.upload_id !== undefined) {
    throw new ServiceError("invalid_input", "give files or upload_id, not both", { field: "upload_id" });
  }
  const existing = input.draft_id ? await findDraft(services.sql, viewer, input.draft_id) : null;
  if (existing && input.expected_version === undefined) {
    throw new ServiceError(
      "invalid_input",
      `expected_version is required to edit draft ${existing.id}: pass the version get_work_draft returned ("${existing.version}" now)`,
      { field: "expected_version", current_version: String(existing.version) },
    );
  }
  if (!existing && input.files === undefined && input.upload_id === undefined) {
    throw new ServiceError("invalid_input", "a new draft needs its content: give files or upload_id", {
      field: "files",
    });
  }
  const ownerId = existing?.owner_user_id ?? viewer.userId;
  const files = await contentOf(services, ownerId, input);

  return await inTransaction(services.sql, async (tx) => {
    const now = services.clock();
    let rows: DraftRow[];
    if (existing) {
      const locked = await findDraft(tx, viewer, existing.id, { lock: true });
      checkDraftVersion(locked, input.expected_version!);
      const next = files ?? locked.files;
      rows = await tx<DraftRow[]>`
        update work_drafts set version = version + 1, status = ${DraftStatus.editing},
          title = ${input.title ?? locked.title}, files = ${tx.json(next as never)},
          content_hash = ${draftContentHash(next)}, updated_at = ${now}
        where id = ${locked.id} returning *`;
    } else {
      const id = randomId(IdPrefix.workDraft);
      rows = await tx<DraftRow[]>`
        insert into work_drafts (id, owner_user_id, title, files, content_hash, created_at, updated_at)
        values (${id}, ${ownerId}, ${input.title ?? ""}, ${tx.json(files as never)}, ${draftContentHash(files!)},
          ${now}, ${now})
        returning *`;
    }
    const row = rows[0]!;
    await recordWorkAudit(
      tx,
      viewer.userId,
      input.upload_id ?? null,
      [
        {
          action: "save_draft",
          subject_kind: "work_draft",
          subject_id: row.id,
          detail: { version: String(row.version), content_hash: row.content_hash, files: row.files.length },
        },
      ],
      now,
    );
    return { draft: toWorkDraft(row), version: String(row.version) };
  });
}

/** The files a save carries, stored as blobs; undefined when the save keeps the draft's files. */
async function contentOf(
  services: Services,
  ownerId: string,
  input: SaveWorkDraftInput,
): Promise<DraftFile[] | undefined> {
  if (input.files !== undefined) return await storeDraftFiles(services.blobs, input.files);
  if (input.upload_id === undefined) return undefined;
  // Only the draft owner's own uploads: another user's upload id is not_found.
  const upload = await findOwnUpload(services.sql, ownerId, input.upload_id);
  if (upload.state === UploadState.requested) {
    throw new ServiceError(
      "upload_not_ready",
      `upload ${upload.id} has not received its archive: PUT it to the upload_url first`,
      { upload_id: upload.id, state: upload.state, field: "upload_id" },
    );
  }
  try {
    return await storeTree(services.blobs, await readUploadTree(services.blobs, upload.content_hash));
  } catch (error) {
    if (error instanceof Error && "code" in error && error.name === "TreeError") {
      throw new ServiceError("invalid_input", `upload ${upload.id} cannot be unpacked: ${error.message}`, {
        field: "upload_id",
        refusal: (error as { code: string }).code,
      });
    }
    throw error;
  }
}
